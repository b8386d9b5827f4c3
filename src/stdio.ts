/** The stdio transport: MCP servers as local child processes (Node only). */
export { StdioTransport } from './transport/stdio/stdio-transport.js';
export {
  DEFAULT_STDIO_OPTIONS,
  type StdioStats,
  type StdioTransportOptions,
} from './transport/stdio/stdio-options.js';
export {
  closeAllStdioServers,
  installShutdownHandlers,
  type ShutdownHandlerOptions,
} from './transport/stdio/shutdown.js';
export { StdioServerTransport } from './transport/stdio/stdio-server-transport.js';
export type { StdioServerTransportOptions } from './transport/stdio/stdio-server-transport.js';
