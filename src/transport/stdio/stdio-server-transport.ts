import type { Readable, Writable } from 'node:stream';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { preview } from '../../errors/redact.js';
import { debugLogger } from '../../internal/debug-logger.js';
import type { Logger } from '../../internal/logger.js';
import { RateLimiter } from '../../internal/rate-limiter.js';
import { settlesWithin } from '../../internal/wait.js';
import type { LineDecoder } from '../../jsonrpc/line-decoder.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../jsonrpc/peer-options.js';
import type { LineWriter } from '../../jsonrpc/line-writer.js';
import type { JsonRpcMessage } from '../../jsonrpc/message.js';
import type { Transport, TransportDiscards, TransportState } from '../../jsonrpc/transport.js';
import { TransportEvents } from '../transport-events.js';

/** How long `close()` waits for what was written to leave the output stream. */
const DRAIN_MS = 2_000;

/** Options of a `StdioServerTransport`. */
export interface StdioServerTransportOptions {
  /** Where messages arrive (default `process.stdin`). */
  input?: Readable;
  /** Where messages go (default `process.stdout`); nothing else may write to it. */
  output?: Writable;
  /** A longer incoming line is discarded unparsed (default 16 MiB). */
  maxMessageBytes?: number;
  /** Refuse to send while this many bytes wait unread on the output (default 64 MiB). */
  maxOutboundBytes?: number;
  /** Names the other side in errors and logs. */
  peerName?: string;
  logger?: Logger;
}

/**
 * The serving end of stdio: newline-delimited JSON-RPC on this process's own stdin and stdout
 * (or any readable and writable stream), for a process that is an MCP server to its parent. The
 * same framing as the client's `StdioTransport` (`LineDecoder`, `LineWriter`): junk lines are
 * skipped and reported, a line over `maxMessageBytes` is discarded without being parsed, what is
 * queued in one tick goes out in one write. The input ending closes the transport (the other side
 * went away); `close()` stops reading, flushes what is queued (bounded) and leaves both streams
 * open: the process's stdio is not the transport's to destroy.
 */
export class StdioServerTransport implements Transport {
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #maxMessageBytes: number;
  readonly #maxOutboundBytes: number | undefined;
  readonly #peerName: string | undefined;
  readonly #logger: Logger;
  readonly #events: TransportEvents;
  readonly #junkLimiter = new RateLimiter(1, 5);
  #discards = { junkMessages: 0, oversizedMessages: 0 };
  #state: TransportState = 'new';
  #writer: LineWriter | undefined;
  #decoder: LineDecoder | undefined;
  #closing: Promise<void> | undefined;

  readonly onMessage;
  readonly onProblem;
  readonly onClose;

  constructor(options: StdioServerTransportOptions = {}) {
    this.#input = options.input ?? process.stdin;
    this.#output = options.output ?? process.stdout;
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#maxOutboundBytes = options.maxOutboundBytes;
    this.#peerName = options.peerName;
    this.#logger = options.logger ?? debugLogger;
    this.#events = new TransportEvents(this.#logger, options.peerName);
    this.onMessage = this.#events.message.event;
    this.onProblem = this.#events.problem.event;
    this.onClose = this.#events.close.event;
  }

  get state(): TransportState {
    return this.#state;
  }

  /** What was thrown away unread: lines that are not JSON, and oversized lines. */
  get discards(): TransportDiscards {
    return { ...this.#discards };
  }

  start(): Promise<void> {
    if (this.#state !== 'new')
      return Promise.reject(
        new McpHostError('INVALID_ARGUMENT', 'start() called twice', {
          serverName: this.#peerName,
        }),
      );
    this.#state = 'starting';
    return loadFraming().then(({ LineDecoder, LineWriter, oversizedMessageError }) => {
      // Closed while the framing loaded: nothing to wire.
      if (this.#state !== 'starting') return;
      this.#decoder = new LineDecoder({
        maxMessageBytes: this.#maxMessageBytes,
        onLine: (line) => this.#onLine(line),
        onOversized: (info) => {
          this.#discards.oversizedMessages++;
          const error = oversizedMessageError(info, this.#maxMessageBytes, this.#peerName);
          this.#logger.warn(error.message);
          this.#events.reportProblem(error, undefined, 'oversized');
        },
      });
      this.#writer = new LineWriter(this.#output, {
        serverName: this.#peerName,
        ...(this.#maxOutboundBytes === undefined
          ? {}
          : { maxBufferedBytes: this.#maxOutboundBytes }),
        onError: (error) => this.#finish(this.#outputError(error)),
      });
      this.#input.on('data', this.#onData);
      this.#input.once('end', this.#onEnd);
      this.#input.on('error', this.#onInputError);
      this.#output.on('error', this.#onOutputError);
      this.#state = 'open';
      this.#input.resume();
    });
  }

  send(message: JsonRpcMessage): void {
    if (this.#state !== 'open' || this.#writer === undefined)
      throw new McpHostError(
        this.#state === 'new' || this.#state === 'starting' ? 'NOT_CONNECTED' : 'CONNECTION_CLOSED',
        `cannot send: the connection is ${this.#state}`,
        { serverName: this.#peerName },
      );
    this.#writer.write(message);
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #close(): Promise<void> {
    if (this.#state === 'closed') return;
    if (this.#state === 'new') return this.#finish(undefined);
    this.#state = 'closing';
    this.#writer?.close();
    this.#unwire();
    if (this.#output.writableLength > 0) {
      const drained = new Promise<void>((resolve) => {
        this.#output.once('drain', resolve);
        this.#output.once('close', resolve);
      });
      await settlesWithin(drained, DRAIN_MS);
    }
    this.#finish(undefined);
  }

  readonly #onData = (chunk: Buffer | string): void => {
    this.#decoder?.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };

  readonly #onEnd = (): void => {
    this.#decoder?.end();
    this.#finish(
      new McpHostError('CONNECTION_CLOSED', 'the input ended: the other side went away', {
        serverName: this.#peerName,
      }),
    );
  };

  readonly #onInputError = (error: Error): void => {
    this.#finish(
      new McpHostError('CONNECTION_CLOSED', `the input failed: ${error.message}`, {
        serverName: this.#peerName,
        cause: error,
      }),
    );
  };

  readonly #onOutputError = (error: Error): void => this.#finish(this.#outputError(error));

  #outputError(error: unknown): McpHostError {
    return new McpHostError(
      'CONNECTION_CLOSED',
      `the output failed: ${error instanceof Error ? error.message : String(error)}`,
      { serverName: this.#peerName, cause: error },
    );
  }

  #onLine(line: string): void {
    if (this.#state !== 'open') return;
    const first = line.trimStart().charCodeAt(0);
    let value: unknown;
    if (first === 0x7b || first === 0x5b) {
      try {
        value = JSON.parse(line);
      } catch {
        value = undefined;
      }
    }
    if (value === undefined) return this.#onJunk(line);
    this.#events.message.fire(value);
  }

  #onJunk(line: string): void {
    this.#discards.junkMessages++;
    const suppressed = this.#junkLimiter.take();
    if (suppressed < 0) return;
    const more = suppressed > 0 ? ` (${suppressed} more since the last report)` : '';
    const error = new McpHostError(
      'INVALID_MESSAGE',
      `skipped an input line that is not JSON${more}: ${preview(line, 80)}`,
      { serverName: this.#peerName, details: { junkLines: this.#discards.junkMessages } },
    );
    this.#logger.warn(error.message);
    this.#events.reportProblem(error, undefined, 'junk');
  }

  #unwire(): void {
    this.#input.off('data', this.#onData);
    this.#input.off('end', this.#onEnd);
    this.#input.off('error', this.#onInputError);
    this.#input.pause();
  }

  #finish(reason: McpHostError | undefined): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#writer?.close();
    this.#unwire();
    this.#output.off('error', this.#onOutputError);
    // A write after this point (EPIPE on a closed pipe) must not become an uncaught error.
    this.#output.on('error', () => {});
    this.#events.closed(reason);
  }
}

/**
 * The line framing and what reports on it, loaded by the first `start()`: the stdio entry's
 * client side (`StdioTransport`) loads it with a server's streams, after the spawn, so importing
 * `mcp-host/stdio` compiles none of it.
 */
function loadFraming() {
  return Promise.all([
    import('../../jsonrpc/line-decoder.js'),
    import('../../jsonrpc/line-writer.js'),
    import('../../jsonrpc/recover-id.js'),
  ]).then(([decoder, writer, recover]) => ({
    LineDecoder: decoder.LineDecoder,
    LineWriter: writer.LineWriter,
    oversizedMessageError: recover.oversizedMessageError,
  }));
}
