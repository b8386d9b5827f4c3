import { McpHostError } from '../errors/mcp-host-error.js';
import { DEFAULT_MAX_BUFFERED_BYTES } from './peer-options.js';

/** The part of a Node Writable the writer needs. */
export interface LineSink {
  write(chunk: string): boolean;
  readonly writableLength: number;
}

export interface LineWriterOptions {
  /** Refuse new messages while this many bytes wait unwritten (the reader is not reading). */
  maxBufferedBytes?: number;
  /** Names the connection in errors. */
  serverName?: string;
  /** Called if the sink throws while writing (the writer then refuses further messages). */
  onError?: (error: unknown) => void;
}

const schedule: (callback: () => void) => void =
  typeof process === 'object' && typeof process.nextTick === 'function'
    ? (callback) => process.nextTick(callback)
    : queueMicrotask;

/**
 * Writes newline-delimited JSON. Every message is serialised at once (so a bad message fails its
 * sender, not the batch) and appended to a queue; everything queued in one tick goes out in one
 * `write()` after the current microtasks have run. Frames never interleave because there is only
 * ever one writer per sink and each frame is a whole string. When the sink already holds
 * `maxBufferedBytes` unwritten, new messages are refused with `OUTBOUND_BUFFER_FULL`.
 */
export class LineWriter {
  readonly #sink: LineSink;
  readonly #maxBufferedBytes: number;
  readonly #serverName: string | undefined;
  readonly #onError: ((error: unknown) => void) | undefined;
  #queue: string[] = [];
  #queuedChars = 0;
  #scheduled = false;
  #closed = false;

  constructor(sink: LineSink, options: LineWriterOptions = {}) {
    this.#sink = sink;
    this.#maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.#serverName = options.serverName;
    this.#onError = options.onError;
  }

  /** Characters queued and not yet handed to the sink. */
  get queuedChars(): number {
    return this.#queuedChars;
  }

  write(message: unknown): void {
    if (this.#closed) {
      throw new McpHostError('CONNECTION_CLOSED', 'cannot send: the connection is closed', {
        serverName: this.#serverName,
      });
    }
    let line: string;
    try {
      line = JSON.stringify(message);
    } catch (error) {
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `message is not serialisable as JSON: ${String(error)}`,
        {
          serverName: this.#serverName,
          cause: error,
        },
      );
    }
    if (line === undefined) {
      throw new McpHostError('INVALID_ARGUMENT', 'message is not serialisable as JSON', {
        serverName: this.#serverName,
      });
    }
    if (this.#sink.writableLength + this.#queuedChars + line.length > this.#maxBufferedBytes) {
      throw new McpHostError(
        'OUTBOUND_BUFFER_FULL',
        `not sent: ${this.#sink.writableLength + this.#queuedChars} bytes already wait unread (limit ${this.#maxBufferedBytes})`,
        { serverName: this.#serverName },
      );
    }
    this.#queue.push(line);
    this.#queuedChars += line.length + 1;
    if (!this.#scheduled) {
      this.#scheduled = true;
      schedule(this.#flush);
    }
  }

  /** Writes what is queued now, synchronously. */
  readonly flush = (): void => {
    this.#flush();
  };

  /** Refuses further writes; what is already queued is still flushed. */
  close(): void {
    this.#flush();
    this.#closed = true;
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const queue = this.#queue;
    if (queue.length === 0) return;
    this.#queue = [];
    this.#queuedChars = 0;
    const data = queue.length === 1 ? `${queue[0]!}\n` : `${queue.join('\n')}\n`;
    try {
      this.#sink.write(data);
    } catch (error) {
      this.#closed = true;
      this.#onError?.(error);
    }
  };
}
