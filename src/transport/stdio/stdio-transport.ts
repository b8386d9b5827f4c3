import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { aboutServer, McpHostError, ProcessExitedError } from '../../errors/mcp-host-error.js';
import { preview, redact } from '../../errors/redact.js';
import { debugLogger } from '../../internal/debug-logger.js';
import { TransportEvents } from '../transport-events.js';
import { Emitter } from '../../internal/emitter.js';
import type { Logger } from '../../internal/logger.js';
import { deferred, delay, settlesWithin } from '../../internal/wait.js';
import type { JsonRpcMessage } from '../../jsonrpc/message.js';
import type { Transport, TransportDiscards, TransportState } from '../../jsonrpc/transport.js';
import { buildChildEnv, EnvSecrets } from './child-env.js';
import { orphanWatchdog, type OrphanWatchdog } from './orphan-watchdog.js';
import { spawnServer } from './spawn-server.js';
import { ServerTree, TREE_MARKER_ENV } from './server-tree.js';
import type { ServerStreams, StreamsOwner } from './server-streams.js';
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
  /** The server's stderr lines; its buffer and log are made with its streams (server-streams.ts). */
  readonly #stderrLines: Emitter<string>;
  readonly #envSecrets: EnvSecrets;
  readonly #events: TransportEvents;
  readonly #exited = deferred<Exit>();
  readonly #stdoutEnded = deferred();
  #state: TransportState = 'new';
  #child: ChildProcessWithoutNullStreams | undefined;
  /** The server's pipes, once wired (server-streams.ts, loaded while the process starts). */
  #streams: ServerStreams | undefined;
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
    this.#stderrLines = new Emitter(reportListenerError);
    this.#envSecrets = new EnvSecrets(options.env, options.publicEnv);
    this.onMessage = this.#events.message.event;
    this.onProblem = this.#events.problem.event;
    this.onClose = this.#events.close.event;
    this.onStderrLine = this.#stderrLines.event;
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
    const tail = this.#streams?.stderrTail(maxBytes);
    if (tail === undefined) return '';
    return redact(this.#envSecrets.mask(Buffer.from(tail).toString('utf8')));
  }

  start(options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#starting ??= this.#start(options.signal);
    return this.#starting;
  }

  send(message: JsonRpcMessage): void {
    if (this.#state !== 'open' || this.#streams === undefined) {
      const code =
        this.#state === 'new' || this.#state === 'starting' ? 'NOT_CONNECTED' : 'CONNECTION_CLOSED';
      throw new McpHostError(code, `cannot send: the connection is ${this.#state}`, {
        serverName: this.serverName,
      });
    }
    this.#streams.write(message);
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
    // The streams' code loads while the process starts up (what the server writes meanwhile
    // waits in the pipes: nothing is read before they are wired).
    let Streams: typeof ServerStreams;
    try {
      ({ ServerStreams: Streams } = await import('./server-streams.js'));
    } catch (error) {
      // This package's own module failed to load (a broken install): the server goes at once.
      this.#tree.killNow();
      throw this.#failStart(
        new McpHostError('SPAWN_FAILED', 'cannot start the server: its stream code did not load', {
          serverName: this.serverName,
          cause: error,
        }),
      );
    }
    this.#streams = new Streams(child, this.#streamsOwner());
    if (signal?.aborted) {
      // The ladder itself: close() would wait for this start to end.
      await this.#stop();
      throw this.#abortedError(signal);
    }
    this.#state = 'open';
  }

  /** What this transport discarded so far: `junkLines` and `oversizedMessages` of `stats`. */
  get discards(): TransportDiscards {
    return {
      junkMessages: this.stats.junkLines,
      oversizedMessages: this.stats.oversizedMessages,
    };
  }

  /** What the server's streams report to (see `ServerStreams`). */
  #streamsOwner(): StreamsOwner {
    return {
      serverName: this.serverName,
      stats: this.stats,
      logger: this.#logger,
      maxMessageBytes: this.#maxMessageBytes,
      maxOutboundBytes: this.#options.maxOutboundBytes,
      events: this.#events,
      stderrBufferBytes: this.#options.stderrBufferBytes ?? DEFAULT_STDIO_OPTIONS.stderrBufferBytes,
      stderrLines: this.#stderrLines,
      stdoutEnded: () => this.#stdoutEnded.resolve(),
    };
  }

  /** The process exited: read what stdout still holds (bounded), then fail what is pending. */
  async #onExit(): Promise<void> {
    const exit = await this.#exited.promise;
    // A process that exits as it starts: its streams are wired first (their code may be loading).
    await this.#starting?.catch(() => {});
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
    if (this.#state === 'open') await this.#stop();
    // The leader is gone (or was killed): what is left of its tree goes too, before close() ends.
    await (this.#reaping ??= this.#reapTree());
  }

  /** Ends stdin and takes the shutdown ladder; the transport is closed when it resolves. */
  async #stop(): Promise<void> {
    this.#state = 'closing';
    this.#streams?.close();
    this.#child?.stdin.end();
    await this.#stopProcess();
    await settlesWithin(this.#stdoutEnded.promise, this.#exitDrainMs, { ref: true });
    this.#finish(undefined);
  }

  /** The shutdown ladder: stdin already ended; wait, SIGTERM, wait, SIGKILL. */
  async #stopProcess(): Promise<void> {
    const exited = this.#exited.promise;
    const termGrace = this.#termGraceMs;
    // While the server takes its EOF and exits, the tree's first snapshot reads every process of
    // the machine (a millisecond or more): the reap after the exit then reads only those started
    // since. After the EOF is on its way (an immediate runs after the poll phase that sends it).
    setImmediate(() => this.#tree.snapshot());
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
    this.#streams?.close();
    const child = this.#child;
    if (child !== undefined) {
      child.stdin.destroy();
      child.stdout.destroy();
      child.stderr.destroy();
    }
    this.#streams?.flushStderr();
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
