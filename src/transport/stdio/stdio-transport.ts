import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { aboutServer, McpHostError, ProcessExitedError } from '../../errors/mcp-host-error.js';
import { preview, redact } from '../../errors/redact.js';
import { debugLogger } from '../../internal/debug-logger.js';
import { TransportEvents } from '../transport-events.js';
import type { Logger } from '../../internal/logger.js';
import { RateLimiter } from '../../internal/rate-limiter.js';
import { ByteRingBuffer } from '../../internal/ring-buffer.js';
import { deferred, delay, settlesWithin } from '../../internal/wait.js';
import { LineDecoder, type OversizedLine } from '../../jsonrpc/line-decoder.js';
import { LineWriter } from '../../jsonrpc/line-writer.js';
import type { JsonRpcMessage } from '../../jsonrpc/message.js';
import { recoverBrokenResponseId, recoverRequestId } from '../../jsonrpc/recover-id.js';
import type { Transport, TransportDiscards, TransportState } from '../../jsonrpc/transport.js';
import { buildChildEnv, EnvSecrets } from './child-env.js';
import { orphanWatchdog, type OrphanWatchdog } from './orphan-watchdog.js';
import { spawnServer } from './spawn-server.js';
import { ServerTree, TREE_MARKER_ENV } from './server-tree.js';
import { StderrLog } from './stderr-log.js';
import { readStdout } from './stdout-reader.js';
import { trackOpen, untrackOpen } from './shutdown.js';
import {
  DEFAULT_STDIO_OPTIONS,
  type StdioStats,
  type StdioTransportOptions,
} from './stdio-options.js';

/** The largest stderr tail an error carries (and `stderrTail()` gives by default). */
const MAX_STDERR_TAIL_BYTES = 8 * 1024;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A server as a child process speaking newline-delimited JSON-RPC on stdin and stdout.
 *
 * The process is spawned without a shell, with an allow-listed environment, as the leader of its
 * own process group. stderr is always drained into a ring buffer and a rate-limited log; junk lines
 * on stdout are skipped and reported. A crash is noticed from the `exit` event (not from the pipes
 * closing, which a grandchild can hold open for ever), and pending work fails at once with a
 * `ProcessExitedError`. `close()` ends stdin, waits, sends SIGTERM, waits, sends SIGKILL, and
 * leaves no process of the server's tree behind.
 */
export class StdioTransport implements Transport {
  readonly serverName: string | undefined;
  readonly stats: StdioStats = {
    messagesReceived: 0,
    junkLines: 0,
    oversizedMessages: 0,
    stderrBytes: 0,
  };

  readonly #options: StdioTransportOptions;
  readonly #logger: Logger;
  readonly #maxMessageBytes: number;
  readonly #closeGraceMs: number;
  readonly #termGraceMs: number;
  readonly #exitDrainMs: number;
  readonly #watchdog: OrphanWatchdog | undefined;
  readonly #tree: ServerTree;
  readonly #stderr: ByteRingBuffer;
  readonly #stderrLog: StderrLog;
  readonly #envSecrets: EnvSecrets;
  readonly #junkLimiter = new RateLimiter(1, 5);
  readonly #events: TransportEvents;
  readonly #exited = deferred<Exit>();
  readonly #stdoutEnded = deferred();
  #state: TransportState = 'new';
  #child: ChildProcessWithoutNullStreams | undefined;
  #writer: LineWriter | undefined;
  #starting: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #reaping: Promise<void> | undefined;
  #finished = false;

  readonly onMessage;
  readonly onProblem;
  readonly onClose;
  /** Each line the server writes to stderr, redacted. */
  readonly onStderrLine;

  constructor(options: StdioTransportOptions) {
    this.#options = options;
    this.serverName = options.serverName;
    this.#logger = options.logger ?? debugLogger;
    const defaults = DEFAULT_STDIO_OPTIONS;
    this.#maxMessageBytes = options.maxMessageBytes ?? defaults.maxMessageBytes;
    this.#closeGraceMs = options.closeGraceMs ?? defaults.closeGraceMs;
    this.#termGraceMs = options.termGraceMs ?? defaults.termGraceMs;
    this.#exitDrainMs = options.exitDrainMs ?? defaults.exitDrainMs;
    const watchdog = options.watchdog ?? defaults.watchdog;
    this.#watchdog = watchdog && process.platform !== 'win32' ? orphanWatchdog() : undefined;
    this.#tree = new ServerTree({ watchdog: this.#watchdog, logger: this.#logger });
    this.#events = new TransportEvents(this.#logger, options.serverName);
    const reportListenerError = this.#events.reportListenerError;
    this.#stderr = new ByteRingBuffer(options.stderrBufferBytes ?? defaults.stderrBufferBytes);
    this.#stderrLog = new StderrLog(this.#logger, options.serverName, reportListenerError);
    this.#envSecrets = new EnvSecrets(options.env, options.publicEnv);
    this.onMessage = this.#events.message.event;
    this.onProblem = this.#events.problem.event;
    this.onClose = this.#events.close.event;
    this.onStderrLine = this.#stderrLog.onLine;
  }

  get state(): TransportState {
    return this.#state;
  }

  /** The server's process id while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The end of what the server wrote to stderr, redacted (at most `maxBytes`, default 8 KiB). */
  stderrTail(maxBytes = MAX_STDERR_TAIL_BYTES): string {
    return redact(this.#envSecrets.mask(Buffer.from(this.#stderr.read(maxBytes)).toString('utf8')));
  }

  start(options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#starting ??= this.#start(options.signal);
    return this.#starting;
  }

  send(message: JsonRpcMessage): void {
    if (this.#state !== 'open' || this.#writer === undefined) {
      const code =
        this.#state === 'new' || this.#state === 'starting' ? 'NOT_CONNECTED' : 'CONNECTION_CLOSED';
      throw new McpHostError(code, `cannot send: the connection is ${this.#state}`, {
        serverName: this.serverName,
      });
    }
    this.#writer.write(message);
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #start(signal: AbortSignal | undefined): Promise<void> {
    if (this.#state !== 'new')
      throw new McpHostError('INVALID_ARGUMENT', 'start() called twice', {
        serverName: this.serverName,
      });
    this.#state = 'starting';
    const { command, args = [], cwd } = this.#options;
    const env = buildChildEnv({ env: this.#options.env, inheritEnv: this.#options.inheritEnv });
    env[TREE_MARKER_ENV] = this.#tree.marker;
    this.#envSecrets.register();
    if (signal?.aborted) throw this.#failStart(this.#abortedError(signal));
    // The server first: the watchdog (a `sh` of its own, a few milliseconds to spawn) is started
    // by `setRoot()` right after, in the same turn, and told the server's group as it starts.
    let child: ChildProcessWithoutNullStreams;
    try {
      child = await spawnServer({
        command,
        args,
        env,
        cwd,
        serverName: this.serverName,
        onSpawned: (pid) => this.#tree.setRoot(pid),
      });
    } catch (error) {
      this.#tree.release();
      throw this.#failStart(error as McpHostError);
    }
    this.#child = child;
    trackOpen(this);
    child.on('error', (error) =>
      this.#logger.warn(aboutServer(this.serverName, 'process error'), { error: error.message }),
    );
    child.once('exit', (code, exitSignal) => this.#exited.resolve({ code, signal: exitSignal }));
    void this.#exited.promise.then(() => this.#onExit());
    this.#wireStreams(child);
    if (signal?.aborted) {
      await this.close();
      throw this.#abortedError(signal);
    }
    this.#state = 'open';
  }

  #wireStreams(child: ChildProcessWithoutNullStreams): void {
    const decoder = new LineDecoder({
      maxMessageBytes: this.#maxMessageBytes,
      onLine: (line, cut) => this.#onLine(line, cut),
      onOversized: (info) => this.#onOversized(info),
    });
    readStdout(child.stdout, {
      onData: (chunk) => decoder.push(chunk),
      onEnd: (ended) => {
        if (ended) decoder.end();
        this.#stdoutEnded.resolve();
      },
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stats.stderrBytes += chunk.length;
      this.#stderr.write(chunk);
      this.#stderrLog.push(chunk);
    });
    child.stderr.on('error', () => {});
    // A dead pipe (EPIPE) is not an error of ours: the exit event says what happened.
    child.stdin.on('error', () => {});
    this.#writer = new LineWriter(child.stdin, {
      serverName: this.serverName,
      maxBufferedBytes: this.#options.maxOutboundBytes,
    });
  }

  /** What this transport discarded so far: `junkLines` and `oversizedMessages` of `stats`. */
  get discards(): TransportDiscards {
    return {
      junkMessages: this.stats.junkLines,
      oversizedMessages: this.stats.oversizedMessages,
    };
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
    this.stats.messagesReceived++;
    this.#events.message.fire(value);
  }

  /**
   * A line that is not JSON: skipped, counted, and reported at a bounded rate. A broken object
   * that shows itself a response (see `recoverBrokenResponseId`) is reported at once with its id,
   * so the request it answers fails now instead of at its timeout.
   */
  #onJunk(line: string, maybeResponse = false): void {
    this.stats.junkLines++;
    const requestId = maybeResponse ? recoverBrokenResponseId(line) : undefined;
    const suppressed = this.#junkLimiter.take();
    if (suppressed < 0 && requestId === undefined) return;
    const more = suppressed > 0 ? ` (${suppressed} more since the last report)` : '';
    const what =
      requestId === undefined
        ? 'skipped a line on stdout that is not JSON'
        : `skipped a response to request ${JSON.stringify(requestId)} that is not valid JSON`;
    const error = new McpHostError('INVALID_MESSAGE', `${what}${more}: ${preview(line, 80)}`, {
      serverName: this.serverName,
      requestId,
      details: { junkLines: this.stats.junkLines },
    });
    if (suppressed >= 0) this.#logger.warn(error.message, { server: this.serverName });
    this.#events.reportProblem(error, requestId, 'junk');
  }

  #onOversized(info: OversizedLine): void {
    this.stats.oversizedMessages++;
    const requestId = recoverRequestId(info.head, info.tail);
    const limit = this.#maxMessageBytes;
    const error = new McpHostError(
      'MESSAGE_TOO_LARGE',
      `discarded a ${info.bytes}-byte message, over the ${limit}-byte limit (maxMessageBytes)`,
      {
        serverName: this.serverName,
        requestId,
        details: { bytes: info.bytes, maxMessageBytes: limit },
      },
    );
    this.#logger.warn(error.message, { server: this.serverName });
    this.#events.reportProblem(error, requestId, 'oversized');
  }

  /** The process exited: read what stdout still holds (bounded), then fail what is pending. */
  async #onExit(): Promise<void> {
    const exit = await this.#exited.promise;
    await settlesWithin(this.#stdoutEnded.promise, this.#exitDrainMs);
    this.#reaping ??= this.#reapTree();
    if (this.#state === 'closing' || this.#state === 'closed') return;
    const tail = this.stderrTail();
    const lastLine = tail.trimEnd().split('\n').pop() ?? '';
    const how =
      exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    const error = new ProcessExitedError(
      `process ${how}${lastLine === '' ? '' : `; stderr: ${preview(lastLine, 200)}`}`,
      { serverName: this.serverName, exitCode: exit.code, signal: exit.signal, stderrTail: tail },
    );
    this.#finish(error);
  }

  async #close(): Promise<void> {
    if (this.#state === 'starting') await this.#starting?.catch(() => {});
    if (this.#state === 'new') {
      this.#finish(undefined);
      return;
    }
    if (this.#state === 'open') {
      this.#state = 'closing';
      this.#writer?.close();
      this.#child?.stdin.end();
      await this.#stopProcess();
      await settlesWithin(this.#stdoutEnded.promise, this.#exitDrainMs, { ref: true });
      this.#finish(undefined);
    }
    await this.#reaping;
  }

  /** The shutdown ladder: stdin already ended; wait, SIGTERM, wait, SIGKILL. */
  async #stopProcess(): Promise<void> {
    const exited = this.#exited.promise;
    const termGrace = this.#termGraceMs;
    if (await settlesWithin(exited, this.#closeGraceMs)) return;
    this.#tree.signal('SIGTERM');
    if (await settlesWithin(exited, termGrace)) return;
    this.#tree.signal('SIGKILL');
    await settlesWithin(exited, termGrace);
  }

  /**
   * After the leader exited: whatever is left of its tree gets SIGTERM, then SIGKILL, and is
   * waited for (bounded) each time: a signal is only delivered when kill() returns, so without the
   * wait close() could resolve while a killed grandchild still runs.
   */
  async #reapTree(): Promise<void> {
    try {
      if (this.#tree.survivors().length === 0) return;
      const termGrace = this.#termGraceMs;
      this.#tree.signal('SIGTERM');
      if (await this.#treeGoneWithin(termGrace)) return;
      this.#tree.signal('SIGKILL');
      await this.#treeGoneWithin(termGrace);
    } finally {
      this.#tree.release();
      untrackOpen(this);
    }
  }

  async #treeGoneWithin(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.#tree.survivors().length > 0) {
      if (Date.now() >= deadline) return false;
      await delay(20, { ref: true });
    }
    return true;
  }

  #finish(reason: McpHostError | undefined): void {
    this.#state = 'closed';
    if (this.#finished) return;
    this.#finished = true;
    this.#writer?.close();
    const child = this.#child;
    if (child !== undefined) {
      child.stdin.destroy();
      child.stdout.destroy();
      child.stderr.destroy();
    }
    this.#stderrLog.flush();
    this.#events.closed(reason);
    this.#envSecrets.release();
  }

  #failStart(error: McpHostError): McpHostError {
    this.#finish(error);
    return error;
  }

  #abortedError(signal: AbortSignal): McpHostError {
    return new McpHostError('ABORTED', 'start was cancelled by the caller', {
      serverName: this.serverName,
      cause: signal.reason,
    });
  }
}
