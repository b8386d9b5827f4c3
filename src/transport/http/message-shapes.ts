/** The few JSON-RPC shapes the HTTP transport must tell apart (it knows no MCP methods). */
import type { JsonRpcMessage } from '../../jsonrpc/message.js';

export type RequestId = string | number;

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

export function isJsonRpcErrorResponse(
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
