/** The small, final answers of the gateway's HTTP layer: a status with a JSON-RPC error body. */
import type { ServerResponse } from 'node:http';
import type { RequestId } from '../../jsonrpc/message.js';

/** The JSON-RPC error codes the HTTP layer answers with (no id: the message was not read as one). */
export const HttpJsonRpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  /** A server error (the JSON-RPC range for implementation-defined errors). */
  ServerError: -32000,
} as const;

/**
 * Ends `res` with `status` and a JSON-RPC error response (without an id, the body the spec allows
 * on an HTTP-level refusal, unless `id` names the refused request; with `data` when given), plus
 * `headers`. Does nothing when the response has begun already.
 */
export function replyError(
  res: ServerResponse,
  status: number,
  message: string,
  options: {
    code?: number;
    data?: unknown;
    id?: RequestId;
    headers?: Readonly<Record<string, string>>;
  } = {},
): void {
  if (res.headersSent || res.writableEnded) {
    if (!res.writableEnded) res.end();
    return;
  }
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: options.id ?? null,
    error: {
      code: options.code ?? HttpJsonRpcCode.ServerError,
      message,
      ...(options.data === undefined ? {} : { data: options.data }),
    },
  });
  res.writeHead(status, {
    ...options.headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

/** Ends `res` with `status` and no body (202 Accepted, 200 after a DELETE). */
export function replyEmpty(
  res: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, headers);
  res.end();
}
