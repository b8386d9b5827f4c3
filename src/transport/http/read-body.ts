import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** A body outgrew its cap; the stream was destroyed. */
export class BodyTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`body larger than the limit (${bytes} bytes read)`);
  }
}

/** The body closed before its end without an error of its own (it was destroyed). */
class BodyClosedError extends Error {
  constructor() {
    super('the body closed before its end');
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * Reads a whole body, at most `maxBytes` of it (decoded: `HttpResponse.body` has undone any
 * `Content-Encoding` already, so a compressed bomb is stopped at the cap). With `truncate` an
 * oversized body is cut at the cap instead of failing (for error previews). The chunks are
 * joined once, at the end.
 */
export function readBodyCapped(
  body: Readable | null,
  maxBytes: number,
  options: { truncate?: boolean } = {},
): Promise<Buffer> {
  if (body === null) return Promise.resolve(EMPTY);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const done = (): void => {
      body.removeListener('data', onData);
      body.removeListener('end', onEnd);
      body.removeListener('error', onError);
      body.removeListener('close', onClose);
    };
    const joined = (): Buffer =>
      chunks.length === 1 ? chunks[0]! : chunks.length === 0 ? EMPTY : Buffer.concat(chunks, total);
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      done();
      body.destroy();
      if (options.truncate !== true) {
        reject(new BodyTooLargeError(total));
        return;
      }
      chunks.push(chunk.subarray(0, chunk.length - (total - maxBytes)));
      total = maxBytes;
      resolve(joined());
    };
    const onEnd = (): void => {
      done();
      resolve(joined());
    };
    const onError = (error: Error): void => {
      done();
      reject(error);
    };
    const onClose = (): void => {
      done();
      reject(new BodyClosedError());
    };
    if (failedEarly(body, reject)) return;
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}

/**
 * A body that failed or was destroyed before anyone read it has emitted its events already:
 * rejects with what happened instead of waiting for events that will not come.
 */
function failedEarly(body: Readable, reject: (error: Error) => void): boolean {
  if (!body.destroyed) return false;
  reject(body.errored ?? new BodyClosedError());
  return true;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Text of a whole UTF-8 body; a leading byte order mark is dropped, as `TextDecoder` does. */
export function utf8(bytes: Buffer): string {
  const start = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return start ? bytes.toString('utf8', 3) : bytes.toString('utf8');
}

export interface SseHandlers {
  onEvent(event: EventSourceMessage): void;
  onRetry(ms: number): void;
}

/**
 * Feeds a `text/event-stream` body to an SSE parser until it ends. The bytes buffered towards one
 * event are capped at `maxEventBytes` (a stream that never finishes an event cannot grow memory
 * without bound); past it the stream is destroyed with `BodyTooLargeError`.
 */
export function readSse(
  body: Readable | null,
  maxEventBytes: number,
  handlers: SseHandlers,
): Promise<void> {
  if (body === null) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    let dispatched = false;
    const parser = createParser({
      onEvent: (event) => {
        dispatched = true;
        handlers.onEvent(event);
      },
      onRetry: (ms) => handlers.onRetry(ms),
    });
    const decoder = new StringDecoder('utf8');
    let first = true;
    let pending = 0;
    const done = (): void => {
      body.removeListener('data', onData);
      body.removeListener('end', onEnd);
      body.removeListener('error', onError);
      body.removeListener('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      let text = decoder.write(chunk);
      if (first && text !== '') {
        first = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      dispatched = false;
      try {
        parser.feed(text);
      } catch (error) {
        done();
        body.destroy();
        reject(asError(error));
        return;
      }
      pending = dispatched ? 0 : pending + chunk.length;
      if (pending > maxEventBytes) {
        done();
        body.destroy();
        reject(new BodyTooLargeError(pending));
      }
    };
    const onEnd = (): void => {
      done();
      try {
        parser.feed(decoder.end());
      } catch (error) {
        reject(asError(error));
        return;
      }
      resolve();
    };
    const onError = (error: Error): void => {
      done();
      reject(error);
    };
    const onClose = (): void => {
      done();
      reject(new BodyClosedError());
    };
    if (failedEarly(body, reject)) return;
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}
