/**
 * mcp-host/client: `McpClient` and its types, for a program that talks to one server and needs
 * nothing else of mcp-host (no host, config files or agent layer: those are the root entry's).
 * It is the root entry's class (`import { McpClient } from 'mcp-host'` is the same one), from a
 * smaller graph: this entry loads the client's shell only, and `connect()` starts a stdio server's
 * process before it loads the rest (the handshake, the JSON-RPC peer), which then loads while the
 * server starts. Errors are `McpHostError`s; `isMcpHostError` is in the root entry.
 */
export { McpClient } from './client/mcp-client.js';
export {
  DEFAULT_CLIENT_OPTIONS,
  type CachedEra,
  type CallOptions,
  type EraStore,
  type InputContinuation,
  type InputResume,
  type McpClientOptions,
  type McpClientState,
  type PromptListing,
  type ResourceListing,
  type ResourceTemplateListing,
  type ServerInputContext,
  type ServerInputHandlers,
  type ToolCallParams,
  type ToolListing,
} from './client/client-options.js';
