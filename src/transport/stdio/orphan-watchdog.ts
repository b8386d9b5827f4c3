import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Logger } from '../../internal/logger.js';

/**
 * The watchdog's program, for POSIX `sh` (tested with dash and bash): nothing to load, under 2 MiB
 * of memory, no CPU while it waits. It reads `+ <pgid>` (a server's process group started) and
 * `- <pgid>` (that tree is gone; never signal the number again, it may be reused) from the host
 * on stdin. When stdin ends, the host is gone, however it died (exit, signal, SIGKILL): it sends
 * SIGTERM to every group it still holds, and SIGKILL a second later to those that had members,
 * then exits.
 *
 * INT, TERM, HUP, QUIT and TSTP are ignored rather than trapped with a handler: a handler would
 * interrupt `read` and end the loop early, while an ignored signal never does. A group id of 0 or
 * 1 (`kill -- -1` would reach every process of the user) or anything but digits is refused.
 */
export const ORPHAN_WATCHDOG_SCRIPT = [
  "trap '' INT TERM HUP QUIT TSTP",
  'g=',
  'while read -r op p; do',
  '  case $p in ""|*[!0-9]*|0*|1) continue ;; esac',
  '  case $op in',
  '    +) g="$g $p" ;;',
  '    -) n=; for x in $g; do [ "$x" = "$p" ] || n="$n $x"; done; g=$n ;;',
  '  esac',
  'done',
  't=',
  'for x in $g; do kill -s TERM -- "-$x" 2>/dev/null && t="$t $x"; done',
  '[ -z "$t" ] && exit 0',
  'sleep 1',
  'for x in $t; do kill -s KILL -- "-$x" 2>/dev/null; done',
  'exit 0',
].join('\n');

/** `$0` of the watchdog: how it shows in `ps` (`sh -c … mcp-host-watchdog`). */
export const ORPHAN_WATCHDOG_NAME = 'mcp-host-watchdog';

/** How many times the watchdog is started within `RESPAWN_WINDOW_MS` before giving up. */
const MAX_STARTS = 5;
const RESPAWN_WINDOW_MS = 60_000;

/** A pipe's end is a `net.Socket`, which can be unref'd. */
type WatchdogProcess = ChildProcessByStdio<Socket, null, null>;

/**
 * One small `sh` process per host process (POSIX) that kills the process groups of the stdio
 * servers still running when the host dies without closing them: SIGKILL, or a signal with no
 * handler (Ctrl-C, SIGTERM), where no exit hook runs. It holds a pipe from the host (its stdin);
 * the pipe closes when the host dies, however it dies.
 *
 * It runs in a session and process group of its own, so a signal sent to the host's whole group
 * (a terminal's Ctrl-C, `kill -9 %1` of a shell job) never reaches it: if the signal ends the
 * host, the pipe closes and the servers' groups are ended; if the host handles it and lives on,
 * so do its servers. (In the host's group, it would have to outlive such a signal by its traps,
 * which a SIGKILL to the group or a Ctrl-C before the shell had set them would defeat.)
 *
 * Started on first need, right after the first server is spawned (in the same turn, so the server's
 * start is not held up by the watchdog's): told the group as it starts, before the host reads
 * anything from the server. It is unref'd: it
 * never keeps the host alive. If it dies, it is started again at once with every group it held
 * (at most 5 starts a minute; after that it is given up, said once in the log). Windows has no
 * watchdog. The exit hook of `ServerTree` still kills known trees when the host exits normally.
 */
export class OrphanWatchdog {
  /** The groups held, each with the logger of the transport that spawned it. */
  readonly #groups = new Map<number, Logger>();
  readonly #starts: number[] = [];
  #child: WatchdogProcess | undefined;
  /** The logger of the latest start, for news when no group is held. */
  #logger: Logger | undefined;
  #gaveUp = false;

  /** The watchdog's process id while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Process groups held. */
  get groups(): number[] {
    return [...this.#groups.keys()];
  }

  /** Starts the watchdog unless it runs; call before spawning a server. */
  start(logger: Logger): void {
    if (this.#child === undefined && !this.#gaveUp) this.#spawn(logger);
  }

  /** A server's process group started: kill it if this process dies before `release()`. */
  hold(pgid: number, logger: Logger): void {
    if (!Number.isSafeInteger(pgid) || pgid <= 1) return;
    this.#groups.set(pgid, logger);
    // A watchdog that starts now is told every group held.
    if (this.#child === undefined) this.start(logger);
    else this.#send(`+ ${pgid}\n`);
  }

  /** The group's tree is gone: forget it (its number may be reused by another process). */
  release(pgid: number): void {
    if (!this.#groups.delete(pgid)) return;
    this.#send(`- ${pgid}\n`);
  }

  #send(line: string): void {
    // A pipe write is attempted at once (libuv): the line is in the kernel's pipe buffer when
    // write() returns, so it survives this process being killed the next instant.
    if (this.#child?.stdin.writable === true) this.#child.stdin.write(line);
  }

  #spawn(logger: Logger): void {
    const now = Date.now();
    while (this.#starts.length > 0 && now - this.#starts[0]! > RESPAWN_WINDOW_MS)
      this.#starts.shift();
    if (this.#starts.length >= MAX_STARTS) {
      this.#gaveUp = true;
      logger.warn(
        `the orphan watchdog was started ${MAX_STARTS} times within a minute; not again: ` +
          'servers will survive this process if it is killed without closing them',
      );
      return;
    }
    this.#starts.push(now);
    this.#logger = logger;
    let child: WatchdogProcess;
    try {
      child = spawn('/bin/sh', ['-c', ORPHAN_WATCHDOG_SCRIPT, ORPHAN_WATCHDOG_NAME], {
        stdio: ['pipe', 'ignore', 'ignore'],
        // `sleep` for the grace before SIGKILL; nothing else of this process's environment.
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        // Its own session and group: out of reach of signals sent to the host's group.
        detached: true,
      }) as WatchdogProcess;
    } catch (error) {
      this.#failed(logger, (error as NodeJS.ErrnoException).code ?? String(error));
      return;
    }
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (child.pid === undefined) this.#failed(logger, error.code);
    });
    child.stdin.on('error', () => {});
    if (child.pid === undefined) return; // spawn failed: the 'error' event follows
    this.#child = child;
    child.unref();
    child.stdin.unref();
    child.once('exit', (code, signal) => this.#exited(child, code, signal));
    for (const pgid of this.#groups.keys()) this.#send(`+ ${pgid}\n`);
  }

  #failed(logger: Logger, code: string | undefined): void {
    logger.warn(
      `could not start the orphan watchdog (/bin/sh: ${code ?? 'unknown error'}): ` +
        'servers will survive this process if it is killed without closing them',
    );
  }

  #exited(child: WatchdogProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#child !== child) return;
    this.#child = undefined;
    child.stdin.destroy();
    const how = signal === null ? `exited with code ${code}` : `was killed by ${signal}`;
    const [logger] = this.#groups.values();
    if (logger === undefined) {
      // Holding nothing: started again when the next server is.
      this.#logger?.debug(`the orphan watchdog (pid ${child.pid}) ${how}`);
      return;
    }
    // Said once the new one is told every group (its pipe written at once): from this line on,
    // the servers are held again.
    this.start(logger);
    const replacement = this.pid;
    logger.warn(
      `the orphan watchdog (pid ${child.pid}) ${how}; ` +
        (replacement === undefined
          ? `${this.#groups.size} server(s) no longer held`
          : `a new one (pid ${replacement}) holds ${this.#groups.size} server(s)`),
    );
  }
}

/**
 * This process's watchdog. Kept on `globalThis` under a registered symbol, so that two copies of
 * mcp-host in one process (or a test runner that reloads modules per file) share one.
 */
export function orphanWatchdog(): OrphanWatchdog {
  const key = Symbol.for('mcp-host.stdio.orphan-watchdog');
  const slots = globalThis as Record<symbol, OrphanWatchdog | undefined>;
  return (slots[key] ??= new OrphanWatchdog());
}
