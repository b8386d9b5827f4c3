import { preview } from '../../errors/redact.js';
import { type McpHostError } from '../../errors/mcp-host-error.js';
import type { Logger } from '../../internal/logger.js';
import { DEFAULT_RETRY_MS, MAX_RETRY_MS, MIN_RETRY_MS } from './http-options.js';
import type { HttpResponse } from './http-response.js';
import { isResponseTo, type RequestId } from './message-shapes.js';
import { BodyTooLargeError, readSse } from './read-body.js';
import type { RequestCancel } from './request-cancel.js';

/** Where an SSE stream left off: whether it answered the request, and how to resume it. */
export interface StreamOutcome {
  answered: boolean;
  lastEventId: string | undefined;
  retryMs: number;
  events: number;
}

export function freshOutcome(): StreamOutcome {
  return { answered: false, lastEventId: undefined, retryMs: DEFAULT_RETRY_MS, events: 0 };
}

/** What the SSE readers need of their transport. */
export interface SseHost {
  readonly maxMessageBytes: number;
  readonly maxReconnects: number;
  readonly logger: Logger;
  readonly where: string;
  isOpen(): boolean;
  deliver(value: unknown): void;
  problem(
    code: McpHostError['code'],
    message: string,
    requestId?: RequestId,
    details?: Record<string, unknown>,
  ): void;
  get(request: { cancel: RequestCancel; lastEventId?: string }): Promise<HttpResponse | undefined>;
}

/** Reads one SSE stream, delivering its messages; says whether `requestId` was answered. */
export async function consumeSse(
  host: SseHost,
  response: HttpResponse,
  cancel: RequestCancel,
  requestId: RequestId | undefined,
  previous?: StreamOutcome,
): Promise<StreamOutcome> {
  const outcome: StreamOutcome = {
    answered: false,
    lastEventId: previous?.lastEventId,
    retryMs: previous?.retryMs ?? DEFAULT_RETRY_MS,
    events: 0,
  };
  try {
    await readSse(response.body, host.maxMessageBytes, {
      onEvent: (event) => {
        if (event.id !== undefined) outcome.lastEventId = event.id;
        outcome.events++;
        // Priming events carry an id and empty data; other event types are not ours.
        if (event.data === '' || (event.event !== undefined && event.event !== 'message')) return;
        let value: unknown;
        try {
          value = JSON.parse(event.data);
        } catch {
          host.problem('INVALID_MESSAGE', `SSE event data is not JSON: ${preview(event.data, 80)}`);
          return;
        }
        if (requestId !== undefined && isResponseTo(value, requestId)) outcome.answered = true;
        if (host.isOpen()) host.deliver(value);
      },
      onRetry: (ms) => {
        outcome.retryMs = Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, ms));
      },
    });
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      host.problem(
        'MESSAGE_TOO_LARGE',
        `discarded an SSE event over the ${host.maxMessageBytes}-byte limit (maxMessageBytes)`,
        requestId,
        { bytes: error.bytes, maxMessageBytes: host.maxMessageBytes },
      );
      outcome.answered = true;
      return outcome;
    }
    // Our own deadline or close: not a dropped stream, the caller reports it.
    if (cancel.aborted) throw error;
    // A dropped stream: the caller decides whether to resume it.
    host.logger.debug(`${host.where}SSE stream broke`, { error: String(error) });
  }
  return outcome;
}

/**
 * Holds a GET stream open, reconnecting after drops (waiting the server's `retry:` and sending
 * `Last-Event-ID`); gives up after `maxReconnects` reconnects in a row that brought no event,
 * or when `cancel` aborts. With `requestId`, stops once that request is answered and returns
 * true. The first GET answered 400/404/405 means the server offers no such stream: not an error.
 */
export async function listenSse(
  host: SseHost,
  start: StreamOutcome,
  cancel: RequestCancel,
  requestId?: RequestId,
): Promise<boolean> {
  let outcome = start;
  let failures = 0;
  for (let first = true; host.isOpen(); first = false) {
    if (!first || requestId !== undefined) {
      if (failures >= host.maxReconnects) {
        host.logger.debug(
          `${host.where}SSE stream given up: ${failures} reconnects brought no event`,
        );
        return false;
      }
      if (!(await waitOpen(host, outcome.retryMs, cancel))) return false;
    }
    let response: HttpResponse | undefined;
    try {
      response = await host.get({ cancel, lastEventId: outcome.lastEventId });
    } catch (error) {
      if (cancel.aborted) return false;
      host.logger.debug(`${host.where}GET stream failed`, { error: String(error) });
      failures++;
      continue;
    }
    if (response === undefined) return false;
    if (!response.ok || contentType(response) !== 'text/event-stream') {
      response.discard();
      if (first && requestId === undefined && [400, 404, 405].includes(response.status)) {
        host.logger.debug(`${host.where}no GET stream (HTTP ${response.status})`);
        return false;
      }
      if (response.status === 405) {
        // No GET at all (as in the 2026-07-28 revision): there is nothing to resume.
        host.logger.debug(`${host.where}the server offers no GET stream to resume (HTTP 405)`);
        return false;
      }
      host.logger.debug(`${host.where}GET stream refused (HTTP ${response.status})`);
      failures++;
      continue;
    }
    try {
      outcome = await consumeSse(host, response, cancel, requestId, outcome);
    } catch {
      return false;
    }
    if (outcome.answered) return true;
    failures = outcome.events > 0 ? 0 : failures + 1;
  }
  return false;
}

/** Waits `ms` unless `cancel` aborts first; true if the transport is still open. */
async function waitOpen(host: SseHost, ms: number, cancel: RequestCancel): Promise<boolean> {
  if (cancel.aborted) return false;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    const stop = cancel.onAbort(done);
    function done(): void {
      clearTimeout(timer);
      stop();
      resolve();
    }
  });
  return !cancel.aborted && host.isOpen();
}

/** The media type of a response, lower-cased, without parameters. */
export function contentType(response: HttpResponse): string {
  const value = response.header('content-type');
  if (value === null) return '';
  // The usual values, as sent, need no work.
  if (value === 'application/json' || value === 'text/event-stream') return value;
  return value.split(';')[0]!.trim().toLowerCase();
}
