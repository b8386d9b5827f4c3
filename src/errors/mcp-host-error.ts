import { PERMANENT_CODES, type ErrorCode } from './codes.js';
import {
  errorJson,
  inspectRedacted,
  inspectSymbol,
  redactJson,
  type InspectFn,
} from './error-json.js';
import { redact, truncate } from './redact.js';

/** Where a failure happened. Every field is optional; none may hold a secret. */
export interface ErrorContext {
  /** The server's configured name. */
  serverName?: string;
  /** The JSON-RPC method involved. */
  method?: string;
  /** The tool involved, by its original (server-side) name. */
  tool?: string;
  /** The JSON-RPC id of the request involved. */
  requestId?: string | number;
  /** Further facts, already safe to print (they are redacted again when shown). */
  details?: Readonly<Record<string, unknown>>;
}

export interface McpHostErrorOptions extends ErrorContext {
  cause?: unknown;
}

/** Error messages are kept short: they are read by people and by models. */
export const MAX_ERROR_MESSAGE_CHARS = 1024;

/**
 * `message` as said about the server named `serverName`: `server '<name>': <message>` (the
 * message alone without a name). The one place that prefix is written: `McpHostError` applies it
 * to every error that carries a `serverName`, and log lines about a server use it too.
 */
export function aboutServer(serverName: string | undefined, message: string): string {
  return serverName === undefined ? message : `server '${serverName}': ${message}`;
}

/**
 * `message` without the `server '<name>': ` that `aboutServer` put first, for a place that names
 * the server already (a table row, a column, a line that starts with its name). A message about
 * another server, or about none, is returned as it is.
 */
export function withoutServerName(serverName: string, message: string): string {
  const prefix = aboutServer(serverName, '');
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/**
 * A local failure of mcp-host: a timeout, a closed connection, a crashed process, bad input.
 * `code` comes from one closed list (see docs/errors.md). An error about a server names it first
 * (`server '<name>': `, from `serverName`: never written by hand). The message is redacted and
 * bounded when the error is made, and `toJSON()` and `util.inspect` redact again, so registering a
 * secret late still keeps it out of dumps.
 */
export class McpHostError extends Error {
  override readonly name: string = 'McpHostError';
  readonly code: ErrorCode;
  readonly serverName: string | undefined;
  readonly method: string | undefined;
  readonly tool: string | undefined;
  readonly requestId: string | number | undefined;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, message: string, options: McpHostErrorOptions = {}) {
    super(
      truncate(redact(aboutServer(options.serverName, message)), MAX_ERROR_MESSAGE_CHARS),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.serverName = options.serverName;
    this.method = options.method;
    this.tool = options.tool;
    this.requestId = options.requestId;
    this.details = options.details;
  }

  /** True when retrying the same operation can never help (see `errorCodes`). */
  get permanent(): boolean {
    return PERMANENT_CODES[this.code];
  }

  toJSON(): Record<string, unknown> {
    return errorJson({
      name: this.name,
      code: this.code,
      message: this.message,
      serverName: this.serverName,
      method: this.method,
      tool: this.tool,
      requestId: this.requestId,
      details: this.details === undefined ? undefined : redactJson(this.details),
      cause: this.cause === undefined ? undefined : causeToJson(this.cause),
    });
  }

  [inspectSymbol](_depth: number, options: object, inspect: InspectFn): string {
    return inspectRedacted(this, options, inspect);
  }
}

function causeToJson(cause: unknown): unknown {
  if (cause instanceof McpHostError) return cause.toJSON();
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return {
      name: cause.name,
      message: redact(cause.message),
      ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    };
  }
  if (typeof cause === 'string') return redact(cause);
  return undefined;
}

export interface ProcessExitedErrorOptions extends McpHostErrorOptions {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The end of the server's stderr, already redacted and at most 8 KiB. */
  stderrTail: string;
}

/** A server process exited (on its own, by a signal, or because it was told to). */
export class ProcessExitedError extends McpHostError {
  override readonly name = 'ProcessExitedError';
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderrTail: string;

  constructor(message: string, options: ProcessExitedErrorOptions) {
    super('PROCESS_EXITED', message, options);
    this.exitCode = options.exitCode;
    this.signal = options.signal;
    this.stderrTail = redact(options.stderrTail);
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      exitCode: this.exitCode,
      signal: this.signal,
      stderrTail: redact(this.stderrTail),
    };
  }
}

export function isMcpHostError(value: unknown): value is McpHostError {
  return value instanceof McpHostError;
}
