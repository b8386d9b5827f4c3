import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { preview } from '../../errors/redact.js';
import type { Logger } from '../../internal/logger.js';
import { RateLimiter } from '../../internal/rate-limiter.js';
import type { Emitter } from '../../internal/emitter.js';
import { ByteRingBuffer } from '../../internal/ring-buffer.js';
import { LineDecoder, type OversizedLine } from '../../jsonrpc/line-decoder.js';
import { LineWriter } from '../../jsonrpc/line-writer.js';
import type { JsonRpcMessage } from '../../jsonrpc/message.js';
import { oversizedMessageError, recoverBrokenResponseId } from '../../jsonrpc/recover-id.js';
import type { TransportEvents } from '../transport-events.js';
import { StderrLog } from './stderr-log.js';
import type { StdioStats } from './stdio-options.js';
import { readStdout } from './stdout-reader.js';

/** What a server's streams report to, and are bounded by: its `StdioTransport`. */
export interface StreamsOwner {
  readonly serverName: string | undefined;
  readonly stats: StdioStats;
  readonly logger: Logger;
  readonly maxMessageBytes: number;
  readonly maxOutboundBytes: number | undefined;
  readonly events: TransportEvents;
  /** How much of the server's stderr to keep (its tail), and where its lines go. */
  readonly stderrBufferBytes: number;
  readonly stderrLines: Emitter<string>;
  /** stdout is over: ended (`ended` true), or failed or destroyed before its end. */
  stdoutEnded(): void;
}

/**
 * A running server's three pipes: stdout read into newline-delimited messages (junk lines and
 * oversized messages skipped and reported), stderr drained into a ring buffer and a rate-limited
 * log, stdin written through a bounded `LineWriter`. `StdioTransport` loads this module while the
 * process starts, so a program spawns its server before it compiles any of it.
 */
export class ServerStreams {
  readonly #owner: StreamsOwner;
  readonly #writer: LineWriter;
  readonly #junkLimiter = new RateLimiter(1, 5);
  readonly #stderr: ByteRingBuffer;
  readonly #stderrLog: StderrLog;

  constructor(child: ChildProcessWithoutNullStreams, owner: StreamsOwner) {
    this.#owner = owner;
    this.#stderr = new ByteRingBuffer(owner.stderrBufferBytes);
    this.#stderrLog = new StderrLog(owner.logger, owner.serverName, owner.stderrLines);
    const decoder = new LineDecoder({
      maxMessageBytes: owner.maxMessageBytes,
      onLine: (line, cut) => this.#onLine(line, cut),
      onOversized: (info) => this.#onOversized(info),
    });
    readStdout(child.stdout, {
      onData: (chunk) => decoder.push(chunk),
      onEnd: (ended) => {
        if (ended) decoder.end();
        owner.stdoutEnded();
      },
    });
    child.stderr.on('data', (chunk: Buffer) => {
      owner.stats.stderrBytes += chunk.length;
      this.#stderr.write(chunk);
      this.#stderrLog.push(chunk);
    });
    child.stderr.on('error', () => {});
    // A dead pipe (EPIPE) is not an error of ours: the exit event says what happened.
    child.stdin.on('error', () => {});
    this.#writer = new LineWriter(child.stdin, {
      serverName: owner.serverName,
      maxBufferedBytes: owner.maxOutboundBytes,
    });
  }

  write(message: JsonRpcMessage): void {
    this.#writer.write(message);
  }

  /** Refuses further writes (what is buffered still goes out). */
  close(): void {
    this.#writer.close();
  }

  /** The last `maxBytes` (at most) the server wrote to stderr, as written. */
  stderrTail(maxBytes: number): Uint8Array {
    return this.#stderr.read(maxBytes);
  }

  /** Logs what is left of a last stderr line without its newline (the server is gone). */
  flushStderr(): void {
    this.#stderrLog.flush();
  }

  #onLine(line: string, cut: boolean): void {
    // A message is an object or a batch; anything else is junk, spotted without a throwing
    // JSON.parse (a throw costs microseconds, which a 10,000-line log burst turns into a stall).
    const first = line.trimStart().charCodeAt(0);
    if (first !== 0x7b && first !== 0x5b) {
      this.#onJunk(line);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // A last line cut by the end of stdout is the server going away mid-write: its exit says
      // why, so it fails no request by itself.
      this.#onJunk(line, first === 0x7b && !cut);
      return;
    }
    this.#owner.stats.messagesReceived++;
    this.#owner.events.message.fire(value);
  }

  /**
   * A line that is not JSON: skipped, counted, and reported at a bounded rate. A broken object
   * that shows itself a response (see `recoverBrokenResponseId`) is reported at once with its id,
   * so the request it answers fails now instead of at its timeout.
   */
  #onJunk(line: string, maybeResponse = false): void {
    const owner = this.#owner;
    owner.stats.junkLines++;
    const requestId = maybeResponse ? recoverBrokenResponseId(line) : undefined;
    const suppressed = this.#junkLimiter.take();
    if (suppressed < 0 && requestId === undefined) return;
    const more = suppressed > 0 ? ` (${suppressed} more since the last report)` : '';
    const what =
      requestId === undefined
        ? 'skipped a line on stdout that is not JSON'
        : `skipped a response to request ${JSON.stringify(requestId)} that is not valid JSON`;
    const error = new McpHostError('INVALID_MESSAGE', `${what}${more}: ${preview(line, 80)}`, {
      serverName: owner.serverName,
      requestId,
      details: { junkLines: owner.stats.junkLines },
    });
    if (suppressed >= 0) owner.logger.warn(error.message, { server: owner.serverName });
    owner.events.reportProblem(error, requestId, 'junk');
  }

  #onOversized(info: OversizedLine): void {
    const owner = this.#owner;
    owner.stats.oversizedMessages++;
    const error = oversizedMessageError(info, owner.maxMessageBytes, owner.serverName);
    owner.logger.warn(error.message, { server: owner.serverName });
    owner.events.reportProblem(error, error.requestId, 'oversized');
  }
}
