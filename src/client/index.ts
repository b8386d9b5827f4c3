export {
  McpClient,
  type McpClientState,
  type CallOptions,
  type Listing,
  type ToolListing,
} from './mcp-client.js';
export * from './client-options.js';
export type { ListChange } from './list-watcher.js';
export type { Session } from './open-session.js';
export type { RetryPolicy } from './request-retry.js';
