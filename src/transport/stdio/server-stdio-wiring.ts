import type { Readable, Writable } from 'node:stream';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { preview } from '../../errors/redact.js';
import type { Logger } from '../../internal/logger.js';
import { RateLimiter } from '../../internal/rate-limiter.js';
import { LineDecoder } from '../../jsonrpc/line-decoder.js';
import { LineWriter } from '../../jsonrpc/line-writer.js';
import type { JsonRpcMessage } from '../../jsonrpc/message.js';
import { oversizedMessageError } from '../../jsonrpc/recover-id.js';
import type { TransportEvents } from '../transport-events.js';

/** What a `StdioServerTransport` hands its wiring, and hears from it. */
export interface ServerStdioOwner {
  readonly input: Readable;
  readonly output: Writable;
  readonly maxMessageBytes: number;
  readonly maxOutboundBytes: number | undefined;
  readonly peerName: string | undefined;
  readonly logger: Logger;
  readonly events: TransportEvents;
  /** Counted here, read through the transport's `discards`. */
  readonly discards: { junkMessages: number; oversizedMessages: number };
  /** Whether messages are still taken (the transport is open). */
  isOpen(): boolean;
  /** The transport ends for `reason` (the input ended or failed, the output failed). */
  finish(reason: McpHostError): void;
}

/**
 * The serving end's framing, wired to its streams: `StdioServerTransport.start()` loads this
 * module, so importing `mcp-host/stdio` (which a client of stdio servers does) compiles none of it.
 */
export class ServerStdioWiring {
  readonly #owner: ServerStdioOwner;
  readonly #decoder: LineDecoder;
  readonly #writer: LineWriter;
  readonly #junkLimiter = new RateLimiter(1, 5);

  constructor(owner: ServerStdioOwner) {
    this.#owner = owner;
    this.#decoder = new LineDecoder({
      maxMessageBytes: owner.maxMessageBytes,
      onLine: (line) => this.#onLine(line),
      onOversized: (info) => {
        owner.discards.oversizedMessages++;
        const error = oversizedMessageError(info, owner.maxMessageBytes, owner.peerName);
        owner.logger.warn(error.message);
        owner.events.reportProblem(error, undefined, 'oversized');
      },
    });
    this.#writer = new LineWriter(owner.output, {
      serverName: owner.peerName,
      ...(owner.maxOutboundBytes === undefined ? {} : { maxBufferedBytes: owner.maxOutboundBytes }),
      onError: (error) => owner.finish(this.#outputError(error)),
    });
    owner.input.on('data', this.#onData);
    owner.input.once('end', this.#onEnd);
    owner.input.on('error', this.#onInputError);
    owner.output.on('error', this.#onOutputError);
  }

  write(message: JsonRpcMessage): void {
    this.#writer.write(message);
  }

  /** Refuses further writes (what is queued still goes out). */
  closeWriter(): void {
    this.#writer.close();
  }

  /** Stops reading: the input's listeners go, and it is paused. */
  unwire(): void {
    const { input } = this.#owner;
    input.off('data', this.#onData);
    input.off('end', this.#onEnd);
    input.off('error', this.#onInputError);
    input.pause();
  }

  /** The output's own error listener goes (the transport then leaves a quiet one). */
  releaseOutput(): void {
    this.#owner.output.off('error', this.#onOutputError);
  }

  readonly #onData = (chunk: Buffer | string): void => {
    this.#decoder.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };

  readonly #onEnd = (): void => {
    this.#decoder.end();
    this.#owner.finish(
      new McpHostError('CONNECTION_CLOSED', 'the input ended: the other side went away', {
        serverName: this.#owner.peerName,
      }),
    );
  };

  readonly #onInputError = (error: Error): void => {
    this.#owner.finish(
      new McpHostError('CONNECTION_CLOSED', `the input failed: ${error.message}`, {
        serverName: this.#owner.peerName,
        cause: error,
      }),
    );
  };

  readonly #onOutputError = (error: Error): void => this.#owner.finish(this.#outputError(error));

  #outputError(error: unknown): McpHostError {
    return new McpHostError(
      'CONNECTION_CLOSED',
      `the output failed: ${error instanceof Error ? error.message : String(error)}`,
      { serverName: this.#owner.peerName, cause: error },
    );
  }

  #onLine(line: string): void {
    if (!this.#owner.isOpen()) return;
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
    this.#owner.events.message.fire(value);
  }

  #onJunk(line: string): void {
    const { discards } = this.#owner;
    discards.junkMessages++;
    const suppressed = this.#junkLimiter.take();
    if (suppressed < 0) return;
    const more = suppressed > 0 ? ` (${suppressed} more since the last report)` : '';
    const error = new McpHostError(
      'INVALID_MESSAGE',
      `skipped an input line that is not JSON${more}: ${preview(line, 80)}`,
      { serverName: this.#owner.peerName, details: { junkLines: discards.junkMessages } },
    );
    this.#owner.logger.warn(error.message);
    this.#owner.events.reportProblem(error, undefined, 'junk');
  }
}
