/**
 * mcp-host: the host side of the Model Context Protocol. This root entry is platform-neutral (no
 * Node-only modules); Node-only parts have their own entries (`mcp-host/stdio`).
 */
export * from './errors/index.js';
export * from './jsonrpc/index.js';
export * from './transport/index.js';
export type { Disposable } from './internal/disposable.js';
export type { Logger, LogFields } from './internal/logger.js';
export { silentLogger } from './internal/logger.js';
export * from './protocol/index.js';
export * from './client/index.js';
export { MemoryStateStore, type StateStore } from './state/state-store.js';
export { canonicalJson, sha256Hex, MAX_CANONICAL_JSON_DEPTH } from './state/canonical-json.js';
export {
  serverIdentity,
  type ServerIdentity,
  type TransportDefinition,
} from './state/server-identity.js';
export * from './schema/index.js';
export * from './host/index.js';
