/** The stdio transport: MCP servers as local child processes (Node only). */
export { StdioTransport } from './transport/stdio/stdio-transport.js';
export {
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_EXIT_DRAIN_MS,
  DEFAULT_STDERR_BUFFER_BYTES,
  MAX_STDERR_TAIL_BYTES,
  type StdioStats,
  type StdioTransportOptions,
} from './transport/stdio/stdio-options.js';
export {
  buildChildEnv,
  DEFAULT_INHERITED_ENV_POSIX,
  DEFAULT_INHERITED_ENV_WINDOWS,
  type ChildEnvOptions,
} from './transport/stdio/child-env.js';
export { TREE_MARKER_ENV } from './transport/stdio/server-tree.js';
export {
  closeAllStdioServers,
  installShutdownHandlers,
  type ShutdownHandlerOptions,
} from './transport/stdio/shutdown.js';
export { debugLogger } from './internal/debug-logger.js';
