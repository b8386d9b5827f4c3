import { MAX_ERROR_MESSAGE_CHARS } from './mcp-host-error.js';
import {
  errorJson,
  inspectRedacted,
  inspectSymbol,
  redactJson,
  type InspectFn,
} from './error-json.js';
import { redact, truncate } from './redact.js';

/** The error codes JSON-RPC 2.0 itself defines. Protocol layers add their own. */
export const JsonRpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

export interface JsonRpcErrorOptions {
  data?: unknown;
  serverName?: string;
  method?: string;
}

/**
 * The other side answered a request with a JSON-RPC error. `code`, `message` and `data` are what it
 * sent (the message redacted and bounded); `serverName` and `method` say where. Also what a request
 * handler throws to answer with a specific error.
 */
export class JsonRpcError extends Error {
  override readonly name = 'JsonRpcError';
  readonly code: number;
  readonly data: unknown;
  readonly serverName: string | undefined;
  readonly method: string | undefined;

  constructor(code: number, message: string, options: JsonRpcErrorOptions = {}) {
    super(truncate(redact(message), MAX_ERROR_MESSAGE_CHARS));
    this.code = code;
    this.data = options.data;
    this.serverName = options.serverName;
    this.method = options.method;
  }

  /** The error object as it goes on the wire. */
  toWire(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  toJSON(): Record<string, unknown> {
    return errorJson({
      name: this.name,
      code: this.code,
      message: this.message,
      serverName: this.serverName,
      method: this.method,
      data: this.data === undefined ? undefined : redactJson(this.data),
    });
  }

  [inspectSymbol](_depth: number, options: object, inspect: InspectFn): string {
    return inspectRedacted(this, options, inspect);
  }
}

export function isJsonRpcError(value: unknown): value is JsonRpcError {
  return value instanceof JsonRpcError;
}
