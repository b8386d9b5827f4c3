import { McpHostError } from '../errors/mcp-host-error.js';
import { isObject } from '../protocol/guards.js';
import { type CacheHints } from '../protocol/types.js';
import { type JsonObject } from '../jsonrpc/message.js';

/**
 * Fetches every page of a paginated list: follows `nextCursor` up to `maxPages` pages, and stops
 * with an error on a malformed page or a cursor the server already gave (a loop). The first page's
 * cache hints (`ttlMs`, `cacheScope`) describe the whole listing.
 */
export async function collectPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<JsonObject>,
  key: string,
  maxPages: number,
  where: { method: string; serverName: string | undefined },
): Promise<{ items: T[] } & CacheHints> {
  const fail = (message: string): McpHostError =>
    new McpHostError('PROTOCOL_VIOLATION', `${where.method}: ${message}`, {
      serverName: where.serverName,
      method: where.method,
    });
  const items: T[] = [];
  const seen = new Set<string>();
  let hints: CacheHints = {};
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = await fetchPage(cursor);
    const list = isObject(result) ? result[key] : undefined;
    if (!Array.isArray(list)) throw fail(`page ${page + 1} has no '${key}' array`);
    if (page === 0) hints = cacheHintsOf(result);
    items.push(...(list as T[]));
    const next = result.nextCursor;
    if (next === undefined || next === null || next === '') return { items, ...hints };
    if (typeof next !== 'string') throw fail(`page ${page + 1} has a non-string nextCursor`);
    if (seen.has(next))
      throw fail(`the server repeated cursor '${next.slice(0, 40)}' (a pagination loop)`);
    seen.add(next);
    cursor = next;
  }
  throw fail(`more than ${maxPages} pages (maxPages)`);
}

export function cacheHintsOf(result: JsonObject): CacheHints {
  const hints: CacheHints = {};
  if (typeof result.ttlMs === 'number' && result.ttlMs >= 0) hints.ttlMs = result.ttlMs;
  if (result.cacheScope === 'public' || result.cacheScope === 'private')
    hints.cacheScope = result.cacheScope;
  return hints;
}
