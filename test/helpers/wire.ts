import type { PeerConventions } from '../../src/jsonrpc/peer-options.js';

/** A message as a hand-driven server end sees it. */
export interface Wire {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** MCP's cancel and progress conventions, as the protocol layer passes them to the peer. */
export const mcpConventions: PeerConventions = {
  cancel: {
    method: 'notifications/cancelled',
    toParams: (requestId, reason) => ({ requestId, reason }),
    requestIdOf: (params) => (params as { requestId?: string | number } | undefined)?.requestId,
  },
  progress: {
    method: 'notifications/progress',
    tokenOf: (params) => (params as { progressToken?: string | number } | undefined)?.progressToken,
    withToken: (params, token) => ({
      ...params,
      _meta: { ...(params?._meta as object | undefined), progressToken: token },
    }),
  },
};
