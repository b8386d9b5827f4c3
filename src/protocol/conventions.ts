import type { PeerConventions } from '../jsonrpc/peer-options.js';
import type { JsonObject, RequestId } from '../jsonrpc/message.js';
import { McpMethod, MetaKey } from './methods.js';
import { isObject } from './guards.js';

/** Tells the protocol-neutral JSON-RPC peer MCP's cancellation and progress conventions. */
export const mcpPeerConventions: PeerConventions = {
  cancel: {
    method: McpMethod.Cancelled,
    toParams: (requestId: RequestId, reason: string) => ({ requestId, reason }),
    requestIdOf: (params: unknown) => {
      const id = isObject(params) ? params.requestId : undefined;
      return typeof id === 'string' || typeof id === 'number' ? id : undefined;
    },
  },
  progress: {
    method: McpMethod.Progress,
    tokenOf: (params: unknown) => {
      const token = isObject(params) ? params.progressToken : undefined;
      return typeof token === 'string' || typeof token === 'number' ? token : undefined;
    },
    withToken: (params: JsonObject | undefined, token: RequestId): JsonObject => ({
      ...params,
      _meta: { ...(isObject(params?._meta) ? params._meta : {}), [MetaKey.ProgressToken]: token },
    }),
  },
};
