/** The few JSON-RPC shapes the HTTP transports must tell apart (they know no MCP methods). */
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/message.js';

/** The id of a request (a message with a method and an id); undefined for anything else. */
export function requestIdOf(message: JsonRpcMessage): RequestId | undefined {
  const m = message as { id?: unknown; method?: unknown };
  return typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')
    ? m.id
    : undefined;
}

export function isResponseTo(value: unknown, id: RequestId): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const m = value as { id?: unknown; method?: unknown };
  return m.id === id && m.method === undefined;
}

/**
 * The answer to request `requestId` carried in the body of a refused POST: a JSON-RPC error for
 * that id (or for no id) answers the request, the HTTP status only framed it. Returned with the
 * request's id; undefined when the body holds no such error.
 */
export function errorAnswerIn(text: string, requestId: RequestId): unknown {
  const value = parseJson(text);
  if (!hasErrorObject(value) || (value.id !== requestId && value.id != null)) return undefined;
  return { ...value, id: requestId };
}

/** An object with an `error` member of the JSON-RPC error shape (the rest is not checked). */
function hasErrorObject(
  value: unknown,
): value is { jsonrpc: '2.0'; id?: RequestId | null; error: { code: number; message: string } } {
  if (typeof value !== 'object' || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'number' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
