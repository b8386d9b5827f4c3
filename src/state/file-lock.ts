/**
 * An exclusive lock between processes, as a lock file next to the file it guards (Node only).
 *
 * - Taking it: create `<lock>` with `open(..., 'wx')` (fails if it exists: atomic on local file
 *   systems) and write `{ pid, hostname, createdAt, token }` into it.
 * - Releasing it: remove `<lock>` if it still holds our token.
 * - Waiting: while someone else holds it, poll with growing pauses (2 ms doubling to 100 ms, with
 *   jitter), for at most `timeoutMs`; then `STATE_LOCK_TIMEOUT`.
 * - Stale locks: a lock whose holder is a dead process on this host, or older than `staleMs`, or
 *   that stayed empty (its holder died between creating and writing it) for `staleMs`, is broken.
 *   Breaking goes through a second lock file, `<lock>.break`: under it the lock is read again and
 *   removed only if it is still the very lock judged stale. Without that, two waiters that both
 *   judged the same dead lock stale could each remove it, the second one removing the lock the
 *   first had just taken. A `<lock>.break` is held for a few file operations only; one left by a
 *   crash is removed when its process is dead or it is older than `staleMs` (the one unguarded
 *   step, and it needs a crash inside that window plus two racing breakers to matter).
 *
 * A holder that keeps the lock longer than `staleMs` loses it; the state store holds it for one
 * read and one write of a small file.
 */
import { open, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { McpHostError } from '../errors/mcp-host-error.js';
import type { Logger } from '../internal/logger.js';
import { delay } from '../internal/wait.js';

export interface FileLockOptions {
  /** How long to wait for a live holder before failing with `STATE_LOCK_TIMEOUT`. */
  timeoutMs: number;
  /** A lock older than this is broken whoever holds it. */
  staleMs: number;
  logger: Logger;
  /** The file the lock guards, for messages. */
  guardedPath: string;
}

/** A held lock. `release()` is idempotent. */
export interface HeldLock {
  release(): Promise<void>;
}

/** What a lock file says about its holder. */
interface LockInfo {
  pid: number;
  hostname: string;
  createdAt: number;
  token: string;
}

/** A lock file as read: its raw text and identity, and its holder if the text parses. */
interface ObservedLock {
  raw: string;
  ino: number;
  mtimeMs: number;
  info: LockInfo | undefined;
}

const FIRST_PAUSE_MS = 2;
const MAX_PAUSE_MS = 100;

export async function acquireFileLock(
  lockPath: string,
  options: FileLockOptions,
): Promise<HeldLock> {
  const info: LockInfo = {
    pid: process.pid,
    hostname: hostname(),
    createdAt: Date.now(),
    token: await randomToken(),
  };
  const started = Date.now();
  let pauseMs = FIRST_PAUSE_MS;
  let logged = false;
  for (;;) {
    info.createdAt = Date.now();
    if (await tryCreate(lockPath, info, options.guardedPath)) return heldLock(lockPath, info.token);
    const observed = await observe(lockPath, options.guardedPath);
    // Gone already (released between our attempt and our look), or stale and now broken: no pause.
    const retryNow =
      observed === undefined ||
      (isStale(observed, options.staleMs) && (await breakStaleLock(lockPath, observed, options)));
    const waitedMs = Date.now() - started;
    const remainingMs = options.timeoutMs - waitedMs;
    if (remainingMs <= 0) throw lockTimeout(lockPath, observed, waitedMs, options);
    if (retryNow) continue;
    if (!logged) {
      logged = true;
      options.logger.debug('state lock busy, waiting', {
        lock: lockPath,
        holderPid: observed.info?.pid,
      });
    }
    // Jitter keeps several waiters from retrying in lock step.
    await delay(Math.min(remainingMs, pauseMs * (0.5 + Math.random())), { ref: true });
    pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS);
  }
}

/** Creates the lock file with our info; false if it exists already. */
async function tryCreate(lockPath: string, info: LockInfo, guardedPath: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(lockPath, 'wx', 0o600);
  } catch (error) {
    const errno = errnoOf(error);
    // Windows answers EPERM while a removed lock file is still being deleted.
    if (errno === 'EEXIST' || (errno === 'EPERM' && process.platform === 'win32')) return false;
    throw stateIoError(guardedPath, lockPath, 'create the lock file', error);
  }
  try {
    await handle.writeFile(JSON.stringify(info));
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(lockPath).catch(() => {});
    throw stateIoError(guardedPath, lockPath, 'write the lock file', error);
  }
  await handle.close();
  return true;
}

function heldLock(lockPath: string, token: string): HeldLock {
  let released: Promise<void> | undefined;
  return {
    release: () => (released ??= release(lockPath, token)),
  };
}

async function release(lockPath: string, token: string): Promise<void> {
  const current = await observe(lockPath, lockPath).catch(() => undefined);
  // Not ours any more (we held it past staleMs and it was broken): leave the new holder's alone.
  if (current?.info?.token !== token) return;
  await unlink(lockPath).catch(() => {});
}

/** Reads a lock file; undefined when there is none. */
async function observe(lockPath: string, guardedPath: string): Promise<ObservedLock | undefined> {
  let raw: string;
  let ino: number;
  let mtimeMs: number;
  try {
    const handle = await open(lockPath, 'r');
    try {
      const stats = await handle.stat();
      ino = stats.ino;
      mtimeMs = stats.mtimeMs;
      raw = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw stateIoError(guardedPath, lockPath, 'read the lock file', error);
  }
  return { raw, ino, mtimeMs, info: parseLockInfo(raw) };
}

function parseLockInfo(raw: string): LockInfo | undefined {
  try {
    const value = JSON.parse(raw) as Partial<LockInfo> | null;
    if (
      typeof value === 'object' &&
      value !== null &&
      Number.isSafeInteger(value.pid) &&
      typeof value.hostname === 'string' &&
      typeof value.createdAt === 'number' &&
      typeof value.token === 'string'
    )
      return value as LockInfo;
  } catch {
    // Empty (its holder is between creating and writing it, or died there) or foreign: no info.
  }
  return undefined;
}

function isStale(lock: ObservedLock, staleMs: number): boolean {
  const now = Date.now();
  if (lock.info === undefined) return now - lock.mtimeMs > staleMs;
  if (lock.info.hostname === hostname() && !isProcessAlive(lock.info.pid)) return true;
  return now - lock.info.createdAt > staleMs;
}

/** Whether a process with this pid exists on this host (EPERM: it does, it is someone else's). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoOf(error) === 'EPERM';
  }
}

/**
 * Removes `observed` if it is still the lock at `lockPath`, under `<lock>.break`. True when the
 * caller should try to take the lock again at once, false when it should wait.
 */
async function breakStaleLock(
  lockPath: string,
  observed: ObservedLock,
  options: FileLockOptions,
): Promise<boolean> {
  const breakPath = `${lockPath}.break`;
  const breaker: LockInfo = {
    pid: process.pid,
    hostname: hostname(),
    createdAt: Date.now(),
    token: await randomToken(),
  };
  if (!(await tryCreate(breakPath, breaker, options.guardedPath))) {
    // Someone else is breaking it. Their break lock is left over only if they crashed.
    const other = await observe(breakPath, options.guardedPath);
    if (other === undefined) return true;
    if (isStale(other, options.staleMs)) {
      await unlink(breakPath).catch(() => {});
      return true;
    }
    return false;
  }
  try {
    const current = await observe(lockPath, options.guardedPath);
    if (current === undefined) return true;
    if (current.ino !== observed.ino || current.raw !== observed.raw) return true; // a new lock
    await unlink(lockPath).catch((error: unknown) => {
      if (errnoOf(error) !== 'ENOENT')
        throw stateIoError(options.guardedPath, lockPath, 'remove a stale lock file', error);
    });
    options.logger.warn('broke a stale state lock', {
      lock: lockPath,
      holderPid: observed.info?.pid,
      holderHost: observed.info?.hostname,
      ageMs: Date.now() - (observed.info?.createdAt ?? observed.mtimeMs),
    });
    return true;
  } finally {
    await unlink(breakPath).catch(() => {});
  }
}

function lockTimeout(
  lockPath: string,
  holder: ObservedLock | undefined,
  waitedMs: number,
  options: FileLockOptions,
): McpHostError {
  const pid = holder?.info?.pid;
  const by = pid === undefined ? 'another process' : `process ${pid}`;
  return new McpHostError(
    'STATE_LOCK_TIMEOUT',
    `state file '${options.guardedPath}': its lock '${lockPath}' is held by ${by} and was not released within ${options.timeoutMs} ms`,
    {
      details: {
        path: options.guardedPath,
        lockPath,
        holderPid: pid,
        holderHost: holder?.info?.hostname,
        waitedMs,
        lockTimeoutMs: options.timeoutMs,
      },
    },
  );
}

/** The errno code (`ENOENT`, `EACCES`, ...) of a Node file system error, if any. */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** `STATE_IO_FAILED` for a failed file operation on the state file, its lock or its directory. */
export function stateIoError(
  statePath: string,
  path: string,
  operation: string,
  cause: unknown,
): McpHostError {
  const errno = errnoOf(cause);
  const where = path === statePath ? '' : ` (${path})`;
  return new McpHostError(
    'STATE_IO_FAILED',
    `state file '${statePath}': cannot ${operation}${where}: ${errno ?? (cause instanceof Error ? cause.message : String(cause))}`,
    { cause, details: { path, statePath, operation, errno } },
  );
}

/**
 * A random UUID, from node:crypto loaded on first use: a process that only reads a state file
 * (a command reading a remembered era) never pays the ~2 ms of loading it.
 */
export async function randomToken(): Promise<string> {
  const { randomUUID } = await import('node:crypto');
  return randomUUID();
}
