import type { IncomingHttpHeaders } from 'node:http';
import { pipeline, type Readable, type Transform } from 'node:stream';
import * as zlib from 'node:zlib';

const noop = (): void => {};

/** Statuses whose responses carry no body (so no content coding to undo). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** More codings than this in one `Content-Encoding` fail the response (as undici's fetch does). */
const MAX_CONTENT_CODINGS = 5;

/**
 * One HTTP response as the transports read it: the status, the headers (lower-case names, as
 * undici's `Dispatcher.request()` gives them; repeated ones as arrays) and the body as a Node
 * `Readable` of Buffers, its `Content-Encoding` (gzip, deflate, br) undone by node:zlib streams
 * the first time `body` is read. Callers cap what they read counting the decoded bytes, so a
 * compressed bomb stops at the cap. The raw body always has an error listener: a body nobody
 * reads yet cannot crash the process when its socket fails.
 */
export class HttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly #raw: Readable;
  #body: Readable | undefined;

  constructor(status: number, headers: IncomingHttpHeaders, raw: Readable) {
    this.status = status;
    this.headers = headers;
    this.#raw = raw;
    raw.on('error', noop);
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  /** A header's value (repeated fields joined with `, `, as `Headers.get` does), or null. */
  header(name: string): string | null {
    const value = this.headers[name];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  /** The media type, lower-cased and without parameters (`text/event-stream`); '' when absent. */
  get mediaType(): string {
    const value = this.header('content-type');
    if (value === null) return '';
    // The usual values, as sent, need no work.
    if (value === 'application/json' || value === 'text/event-stream') return value;
    return value.split(';')[0]!.trim().toLowerCase();
  }

  /** The decoded body. */
  get body(): Readable {
    this.#body ??= this.#decode();
    return this.#body;
  }

  /** Drops the body unread (closing its connection unless the response has already ended). */
  discard(): void {
    (this.#body ?? this.#raw).destroy();
  }

  #decode(): Readable {
    const coding = this.header('content-encoding');
    if (coding === null || NULL_BODY_STATUSES.has(this.status)) return this.#raw;
    const codings = coding.toLowerCase().split(',');
    if (codings.length > MAX_CONTENT_CODINGS) {
      const error = new Error(`too many content codings in the response (${codings.length})`);
      this.#raw.destroy(error);
      return this.#raw;
    }
    const decoders: Transform[] = [];
    for (let i = codings.length - 1; i >= 0; i--) {
      const name = codings[i]!.trim();
      if (name === 'gzip' || name === 'x-gzip') {
        decoders.push(
          zlib.createGunzip({
            flush: zlib.constants.Z_SYNC_FLUSH,
            finishFlush: zlib.constants.Z_SYNC_FLUSH,
          }),
        );
      } else if (name === 'deflate') {
        decoders.push(
          zlib.createInflate({
            flush: zlib.constants.Z_SYNC_FLUSH,
            finishFlush: zlib.constants.Z_SYNC_FLUSH,
          }),
        );
      } else if (name === 'br') {
        decoders.push(
          zlib.createBrotliDecompress({
            flush: zlib.constants.BROTLI_OPERATION_FLUSH,
            finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
          }),
        );
      } else {
        // An unknown coding (or `identity`): the bytes are passed on as they came, as fetch does.
        for (const decoder of decoders) decoder.destroy();
        return this.#raw;
      }
    }
    if (decoders.length === 0) return this.#raw;
    // The pipeline destroys every stream when one fails or the last is destroyed; the last one
    // then emits the error for whoever reads it.
    pipeline([this.#raw, ...decoders], noop);
    return decoders[decoders.length - 1]!;
  }
}
