/**
 * Starts a fixture server from test/fixtures/servers as a real child process behind a
 * StdioTransport and a JsonRpcPeer, as an `await using` resource: disposing it closes the peer
 * (and so the transport) and then proves that nothing of the server's process tree, no handle and
 * no stray error outlived it.
 */
import { fileURLToPath } from 'node:url';
import {
  JsonRpcPeer,
  type Logger,
  type LogFields,
  type McpHostError,
  type TransportProblem,
} from '../../src/index.js';
import { StdioTransport, type StdioTransportOptions } from '../../src/stdio.js';
import { TREE_MARKER_ENV } from '../../src/transport/stdio/server-tree.js';
import { LeakGuard } from './leak-guard.js';
import { readEnviron } from './processes.js';

export type FixtureName =
  | 'bad-ids'
  | 'closes-stdin'
  | 'crash-before-answer'
  | 'crash-mid-call'
  | 'crash-mid-session'
  | 'crash-on-start'
  | 'deaf-stubborn'
  | 'echo'
  | 'env'
  | 'grandchild'
  | 'huge-line'
  | 'junk-stdout'
  | 'never-answers'
  | 'stderr-flood'
  | 'stubborn';

export function fixturePath(name: FixtureName): string {
  return fileURLToPath(new URL(`../fixtures/servers/${name}.mjs`, import.meta.url));
}

export interface LogRecord {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: LogFields | undefined;
}

/** A logger that keeps what it is given, so a test can search it (for secrets, say). */
export interface CapturingLogger extends Logger {
  readonly records: LogRecord[];
  /** Everything logged, as one string. */
  text(): string;
}

export function capturingLogger(): CapturingLogger {
  const records: LogRecord[] = [];
  const at =
    (level: LogRecord['level']) =>
    (message: string, fields?: LogFields): void =>
      void records.push({ level, message, fields });
  return {
    records,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    text: () =>
      records.map((r) => `${r.level} ${r.message} ${JSON.stringify(r.fields ?? {})}`).join('\n'),
  };
}

export interface FixtureOptions extends Omit<StdioTransportOptions, 'command' | 'args' | 'logger'> {
  args?: readonly string[];
  /** The peer's idle timeout per request (default 60 s: a crash must be noticed without it). */
  requestTimeoutMs?: number;
  /** Wait until the fixture says `ready` on stderr (default true). */
  waitForReady?: boolean;
}

export interface FixtureServer extends AsyncDisposable {
  readonly transport: StdioTransport;
  readonly peer: JsonRpcPeer;
  /** The server's process id (it stays known after the process is gone). */
  readonly pid: number;
  /** The server tree's `MCP_HOST_TREE` marker, read from /proc. */
  readonly marker: string | undefined;
  readonly guard: LeakGuard;
  readonly logger: CapturingLogger;
  /** Problems the transport reported (junk lines, oversized messages). */
  readonly problems: TransportProblem[];
  /** Resolves with the transport's close reason (undefined after a local close). */
  readonly closed: Promise<McpHostError | undefined>;
  /** The last stderr lines seen (bounded), redacted by the transport. */
  stderrLines(): readonly string[];
  /** Resolves with the first stderr line matching `pattern`; rejects if the transport closes first. */
  waitForStderr(pattern: RegExp): Promise<RegExpExecArray>;
}

/** Stderr lines kept per fixture: enough for assertions, bounded for floods. */
const MAX_KEPT_LINES = 1000;

export async function startFixture(
  name: FixtureName,
  options: FixtureOptions = {},
): Promise<FixtureServer> {
  const {
    args = [],
    requestTimeoutMs = 60_000,
    waitForReady = true,
    ...transportOptions
  } = options;
  const guard = new LeakGuard();
  const logger = capturingLogger();
  const transport = new StdioTransport({
    command: process.execPath,
    args: [fixturePath(name), ...args],
    serverName: name,
    logger,
    ...transportOptions,
  });
  const peer = new JsonRpcPeer(transport, { serverName: name, requestTimeoutMs });

  const lines: string[] = [];
  const waiters = new Set<{
    pattern: RegExp;
    resolve: (m: RegExpExecArray) => void;
    reject: (e: unknown) => void;
  }>();
  transport.onStderrLine((line) => {
    lines.push(line);
    if (lines.length > MAX_KEPT_LINES) lines.shift();
    for (const waiter of waiters) {
      const match = waiter.pattern.exec(line);
      if (match !== null) {
        waiters.delete(waiter);
        waiter.resolve(match);
      }
    }
  });
  const problems: TransportProblem[] = [];
  transport.onProblem((problem) => void problems.push(problem));
  let closedReason: McpHostError | undefined;
  let isClosed = false;
  const closed = new Promise<McpHostError | undefined>((resolve) => {
    transport.onClose((reason) => {
      isClosed = true;
      closedReason = reason;
      for (const waiter of waiters) waiter.reject(closeError(name, reason));
      waiters.clear();
      resolve(reason);
    });
  });

  const waitForStderr = (pattern: RegExp): Promise<RegExpExecArray> => {
    for (const line of lines) {
      const match = pattern.exec(line);
      if (match !== null) return Promise.resolve(match);
    }
    if (isClosed) return Promise.reject(closeError(name, closedReason));
    return new Promise((resolve, reject) => void waiters.add({ pattern, resolve, reject }));
  };

  const dispose = async (): Promise<void> => {
    try {
      await peer.close();
      const leftovers: string[] = [];
      if (transport.state !== 'closed') leftovers.push(`transport state ${transport.state}`);
      if (peer.pendingCount !== 0) leftovers.push(`${peer.pendingCount} pending requests`);
      if (peer.hasTimers) leftovers.push('request timers still armed');
      if (leftovers.length > 0) throw new Error(`fixture '${name}' left: ${leftovers.join(', ')}`);
    } finally {
      await guard[Symbol.asyncDispose]();
    }
  };

  try {
    await peer.start();
    const pid = transport.pid!;
    guard.trackPid(pid);
    // Read once the server is running its own program: between fork and exec, /proc still shows
    // this process's environment (no marker).
    if (waitForReady) await waitForStderr(/^ready$/);
    const marker = readEnviron(pid)?.get(TREE_MARKER_ENV);
    guard.trackMarker(marker);
    return {
      transport,
      peer,
      pid,
      marker,
      guard,
      logger,
      problems,
      closed,
      stderrLines: () => lines,
      waitForStderr,
      [Symbol.asyncDispose]: dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}

function closeError(name: string, reason: McpHostError | undefined): Error {
  return new Error(`fixture '${name}' closed before the awaited stderr line`, { cause: reason });
}
