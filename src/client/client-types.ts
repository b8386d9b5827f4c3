import type { CacheHints, ProgressNotificationParams, Tool } from '../protocol/types.js';

export type McpClientState = 'new' | 'connecting' | 'ready' | 'closing' | 'closed';

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Progress notifications for this call; they also restart its idle timeout. */
  onProgress?: (progress: ProgressNotificationParams) => void;
}

/** A whole list, all pages fetched, with the modern era's cache hints when the server gave them. */
export interface Listing<T> extends CacheHints {
  items: T[];
}

/** Tools, minus those whose definition is unusable (each named with the reason). */
export interface ToolListing extends Listing<Tool> {
  excluded: { name: string; reason: string }[];
}
