import type * as SessionCode from './connected-client.js';

/**
 * The session's code: `ConnectedClient`, with the handshake of either era, the JSON-RPC peer, the
 * era's requests, the HTTP policy around them and the schema validator. Loaded by the first
 * `connect()`, after it has started a local server's process (see early-transport.ts), so that a
 * program importing `mcp-host/client` loads it while its server starts. One promise per process.
 */
let sessionCode: Promise<typeof SessionCode> | undefined;

export function loadSessionCode(): Promise<typeof SessionCode> {
  sessionCode ??= import('./connected-client.js').catch((error: unknown) => {
    sessionCode = undefined;
    throw error;
  });
  return sessionCode;
}
