import type { Readable, Writable } from 'node:stream';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { debugLogger } from '../../internal/debug-logger.js';
import type { Logger } from '../../internal/logger.js';
import { settlesWithin } from '../../internal/wait.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../jsonrpc/peer-options.js';
import type { JsonRpcMessage } from '../../jsonrpc/message.js';
import type { Transport, TransportDiscards, TransportState } from '../../jsonrpc/transport.js';
import { TransportEvents } from '../transport-events.js';
import type { ServerStdioWiring } from './server-stdio-wiring.js';

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
  readonly #discards = { junkMessages: 0, oversizedMessages: 0 };
  #state: TransportState = 'new';
  /** The framing on the streams, once `start()` has loaded and wired it. */
  #wiring: ServerStdioWiring | undefined;
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
    return import('./server-stdio-wiring.js').then(({ ServerStdioWiring }) => {
      // Closed while the framing loaded: nothing to wire.
      if (this.#state !== 'starting') return;
      this.#wiring = new ServerStdioWiring({
        input: this.#input,
        output: this.#output,
        maxMessageBytes: this.#maxMessageBytes,
        maxOutboundBytes: this.#maxOutboundBytes,
        peerName: this.#peerName,
        logger: this.#logger,
        events: this.#events,
        discards: this.#discards,
        isOpen: () => this.#state === 'open',
        finish: (reason) => this.#finish(reason),
      });
      this.#state = 'open';
      this.#input.resume();
    });
  }

  send(message: JsonRpcMessage): void {
    if (this.#state !== 'open' || this.#wiring === undefined)
      throw new McpHostError(
        this.#state === 'new' || this.#state === 'starting' ? 'NOT_CONNECTED' : 'CONNECTION_CLOSED',
        `cannot send: the connection is ${this.#state}`,
        { serverName: this.#peerName },
      );
    this.#wiring.write(message);
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
    this.#wiring?.closeWriter();
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

  #unwire(): void {
    if (this.#wiring === undefined) this.#input.pause();
    else this.#wiring.unwire();
  }

  #finish(reason: McpHostError | undefined): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#wiring?.closeWriter();
    this.#unwire();
    this.#wiring?.releaseOutput();
    // A write after this point (EPIPE on a closed pipe) must not become an uncaught error.
    this.#output.on('error', () => {});
    this.#events.closed(reason);
  }
}
