import { JsonRpcError, JsonRpcErrorCode } from '../errors/json-rpc-error.js';
import { isObject } from '../protocol/guards.js';

/** One page of a list the gateway serves, and the cursor of the next one (if any). */
export interface ListPage<T> {
  items: T[];
  nextCursor?: string;
}

/**
 * The page of `items` a list request's `cursor` asks for, `pageSize` at most. A cursor is opaque
 * to the client (the offset of the page, encoded); one this gateway did not make is refused with
 * -32602 (Invalid params), as the spec asks. Each page is cut from the list as it is when asked:
 * a list that changes between pages may show an item twice or skip one, and says so with
 * `list_changed`.
 */
export function pageOf<T>(items: readonly T[], params: unknown, pageSize: number): ListPage<T> {
  const cursor = isObject(params) ? params.cursor : undefined;
  const start = cursor === undefined ? 0 : offsetOf(cursor);
  const end = start + pageSize;
  const page: ListPage<T> = { items: items.slice(start, end) };
  if (end < items.length) page.nextCursor = cursorOf(end);
  return page;
}

/** A list result: the page's items under `field`, and its `nextCursor` when there is one. */
export function pageResult<T>(field: string, page: ListPage<T>): Record<string, unknown> {
  return page.nextCursor === undefined
    ? { [field]: page.items }
    : { [field]: page.items, nextCursor: page.nextCursor };
}

function cursorOf(offset: number): string {
  return btoa(`o:${offset}`);
}

function offsetOf(cursor: unknown): number {
  let text = '';
  try {
    if (typeof cursor === 'string' && cursor.length <= 64) text = atob(cursor);
  } catch {
    // Not base64: not a cursor of ours.
  }
  const match = /^o:(\d{1,9})$/.exec(text);
  if (match === null)
    throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'Invalid cursor', {
      data: { cursor: typeof cursor === 'string' ? cursor.slice(0, 64) : null },
    });
  return Number(match[1]);
}
