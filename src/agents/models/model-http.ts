/**
 * What every model client shares: its options, one streaming POST over `fetch` read as
 * server-sent events (bounded in total and per event, stopped by the caller's signal), and the
 * typed errors that name the provider and model. API keys never reach an error or a printable
 * object: each is registered with the redactor and held only in the request's headers.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { ErrorCode } from '../../errors/codes.js';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { addSecret, preview } from '../../errors/redact.js';
import { isObject } from '../../protocol/guards.js';
import { fetchErrno, isConnectErrno } from '../../transport/http/http-problems.js';
import type { ModelMessage } from './model-client.js';

/** Options every model client takes. */
export interface ModelClientOptions {
  /** The model's name, as the provider knows it. */
  model: string;
  /** The API's base URL (each client has the provider's public one as its default). */
  baseUrl?: string;
  /** The API key. Registered as a secret: it never appears in errors or logs. */
  apiKey?: string;
  /** Extra request headers (for a gateway or proxy). */
  headers?: Readonly<Record<string, string>>;
  /** Fields merged into every request body (sampling settings such as `temperature`). */
  body?: Readonly<Record<string, unknown>>;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  /** Upper bound on one reply's streamed bytes (default 32 MiB). */
  maxStreamBytes?: number;
  /** Upper bound on one server-sent event's bytes (default 4 MiB). */
  maxEventBytes?: number;
}

/** Default of `maxStreamBytes`. */
export const DEFAULT_MAX_STREAM_BYTES = 32 * 1024 * 1024;
/** Default of `maxEventBytes`. */
export const DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024;

/** One server-sent event of a model's reply, its data parsed as JSON (`[DONE]` kept as text). */
export interface ModelStreamEvent {
  event: string | undefined;
  data: unknown;
}

/** Who a failure is about: the client's provider label and model. */
export interface ModelLabel {
  /** The client's label (`openai-chat`, `openai-responses`, `anthropic`, `gemini`). */
  provider: string;
  model: string;
}

/** A failure of `label`'s model: `model '<provider>:<model>': <what>`. */
export function modelError(
  label: ModelLabel,
  code: ErrorCode,
  what: string,
  extra: { cause?: unknown; details?: Record<string, unknown> } = {},
): McpHostError {
  return new McpHostError(code, `model '${label.provider}:${label.model}': ${what}`, {
    ...(extra.cause === undefined ? {} : { cause: extra.cause }),
    details: { provider: label.provider, model: label.model, ...extra.details },
  });
}

/** Registers `apiKey` as a secret (kept for the process's life: clients are long-lived). */
export function registerKey(apiKey: string | undefined): void {
  if (apiKey !== undefined && apiKey !== '') addSecret(apiKey);
}

/** `base` and `path` joined with exactly one slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** The provider's error message in an error body, when it has one. */
export function providerMessage(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  const error = body.error;
  if (typeof error === 'string') return error;
  if (isObject(error) && typeof error.message === 'string') return error.message;
  if (typeof body.message === 'string') return body.message;
  return undefined;
}

/**
 * POSTs `body` as JSON to `url` and yields the reply's server-sent events. Throws (as typed
 * errors naming `label`): `HTTP_STATUS` for a non-2xx answer (with the provider's message),
 * `CONNECT_FAILED` or `HTTP_REQUEST_FAILED` when the request fails, `MESSAGE_TOO_LARGE` past the
 * byte bounds, `INVALID_MESSAGE` for data that is not JSON, `ABORTED` (the signal's reason as
 * `cause`) when `signal` aborts, at any point.
 */
export async function* postSse(
  label: ModelLabel,
  options: ModelClientOptions,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  signal: AbortSignal | undefined,
): AsyncGenerator<ModelStreamEvent> {
  const doFetch = options.fetch ?? fetch;
  const maxStreamBytes = options.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES;
  const maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  const aborted = (): McpHostError =>
    modelError(label, 'ABORTED', 'the request was aborted', { cause: signal?.reason });
  if (signal?.aborted === true) throw aborted();
  // A controller of our own, so a consumer that stops early (or a bound hit) ends the request.
  const controller = new AbortController();
  const forward = (): void => controller.abort(signal?.reason);
  signal?.addEventListener('abort', forward, { once: true });
  try {
    let response: Response;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          ...options.headers,
          ...headers,
        },
        body: JSON.stringify({ ...(isObject(body) ? body : {}), ...options.body }),
        signal: controller.signal,
      });
    } catch (error) {
      if (isAborted(signal)) throw aborted();
      const errno = fetchErrno(error);
      throw modelError(
        label,
        errno !== undefined && isConnectErrno(errno) ? 'CONNECT_FAILED' : 'HTTP_REQUEST_FAILED',
        `the request to ${new URL(url).origin} failed${errno === undefined ? '' : ` (${errno})`}`,
        { cause: error, ...(errno === undefined ? {} : { details: { errno } }) },
      );
    }
    if (!response.ok) {
      const text = await boundedText(response, 64 * 1024).catch(() => '');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const message = providerMessage(parsed) ?? text;
      throw modelError(
        label,
        'HTTP_STATUS',
        `HTTP ${response.status}${message === '' ? '' : `: ${preview(message, 1024)}`}`,
        { details: { status: response.status } },
      );
    }
    if (response.body === null) return;
    const queue: ModelStreamEvent[] = [];
    let malformed: McpHostError | undefined;
    // Characters of the event being received (after the last blank line), bounded.
    let pending = 0;
    const parser = createParser({
      onEvent: (message: EventSourceMessage) => {
        if (malformed !== undefined) return;
        if (message.data === '[DONE]') {
          queue.push({ event: message.event, data: '[DONE]' });
          return;
        }
        try {
          queue.push({ event: message.event, data: JSON.parse(message.data) });
        } catch (error) {
          malformed = modelError(
            label,
            'INVALID_MESSAGE',
            `the stream sent an event that is not JSON: ${preview(message.data, 120)}`,
            { cause: error },
          );
        }
      },
    });
    const decoder = new TextDecoder();
    let total = 0;
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        total += chunk.byteLength;
        if (total > maxStreamBytes) {
          throw modelError(
            label,
            'MESSAGE_TOO_LARGE',
            `the reply streamed more than ${maxStreamBytes} bytes (maxStreamBytes)`,
          );
        }
        const text = decoder.decode(chunk, { stream: true });
        const boundary = afterLastBlankLine(text);
        pending = boundary === -1 ? pending + text.length : text.length - boundary;
        parser.feed(text);
        if (malformed !== undefined) throw malformed;
        if (pending > maxEventBytes) {
          throw modelError(
            label,
            'MESSAGE_TOO_LARGE',
            `an event of the stream grew past ${maxEventBytes} bytes (maxEventBytes)`,
          );
        }
        yield* queue.splice(0);
      }
    } catch (error) {
      if (isAborted(signal)) throw aborted();
      if (error instanceof McpHostError) throw error;
      const errno = fetchErrno(error);
      throw modelError(
        label,
        'STREAM_INTERRUPTED',
        `the stream broke before the reply ended${errno === undefined ? '' : ` (${errno})`}`,
        { cause: error, details: { maybeExecuted: true } },
      );
    }
    parser.feed(decoder.decode());
    if (malformed !== undefined) throw malformed;
    yield* queue.splice(0);
  } finally {
    signal?.removeEventListener('abort', forward);
    controller.abort();
  }
}

/** A stream that ended before its provider's final event. */
export function truncatedStream(label: ModelLabel): McpHostError {
  return modelError(label, 'STREAM_INTERRUPTED', 'the stream ended before the reply was complete', {
    details: { maybeExecuted: true },
  });
}

/** An error the provider sent inside the stream. */
export function streamedError(label: ModelLabel, data: unknown): McpHostError {
  return modelError(
    label,
    'HTTP_REQUEST_FAILED',
    `the provider reported an error mid-stream: ${preview(providerMessage(data) ?? JSON.stringify(data), 1024)}`,
  );
}

/** The arguments the model sent, parsed when they are a JSON object's text (else as sent). */
export function parsedArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : text;
  } catch {
    return text;
  }
}

async function boundedText(response: Response, maxBytes: number): Promise<string> {
  if (response.body === null) return '';
  const decoder = new TextDecoder();
  let text = '';
  let total = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    text += decoder.decode(chunk, { stream: true });
    if (total > maxBytes) break;
  }
  return text;
}

/** Whether `signal` has aborted (a function, so a check after an await is not narrowed away). */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** Where the text after the last blank line (an event's end) starts; -1 when it has none. */
function afterLastBlankLine(text: string): number {
  let end = -1;
  for (const blank of ['\n\n', '\r\r', '\r\n\r\n', '\n\r\n']) {
    const at = text.lastIndexOf(blank);
    if (at !== -1) end = Math.max(end, at + blank.length);
  }
  return end;
}

/**
 * Appends `items` to the conversation as a turn of `role`, merged into the last turn when that has
 * the same role (Anthropic and Gemini want user and model turns to alternate; tool results are
 * user turns there); no items, no turn.
 */
export function pushTurn<Role, Item>(
  turns: Array<{ role: Role; items: Item[] }>,
  role: Role,
  items: readonly Item[],
): void {
  if (items.length === 0) return;
  const last = turns.at(-1);
  if (last !== undefined && last.role === role) last.items.push(...items);
  else turns.push({ role, items: [...items] });
}

/**
 * The conversation's system messages as one text (Anthropic and Gemini take it beside the turns,
 * not as one); empty when there is none.
 */
export function systemText(messages: readonly ModelMessage[]): string {
  return messages
    .flatMap((message) => (message.role === 'system' ? [message.text] : []))
    .join('\n\n');
}
