/** What only the file store does: its format, atomic writes, modes, the lock, bad files. */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { patchEnv, tempDir } from '../../test/helpers/scratch.js';
import type { LogFields, Logger } from '../internal/logger.js';
import { FileStateStore, type FileStateStoreOptions } from './file-state-store.js';
import { rejection } from '../../test/helpers/peer-harness.js';

interface LogRecord {
  level: keyof Logger;
  message: string;
  fields: LogFields | undefined;
}

function recordingLogger(): Logger & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  const log =
    (level: keyof Logger) =>
    (message: string, fields?: LogFields): void =>
      void records.push({ level, message, fields });
  return {
    records,
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
  };
}

/** A temp dir with a store on `<dir>/state.json`; both go away at scope end. */
function scratchStore(options: FileStateStoreOptions = {}) {
  const dir = tempDir();
  const path = join(dir.path, 'state.json');
  const logger = recordingLogger();
  const store = new FileStateStore({ path, logger, ...options });
  return {
    dir: dir.path,
    path,
    logger,
    store,
    async [Symbol.asyncDispose]() {
      await store.close();
      dir[Symbol.dispose]();
    },
  };
}

/** The pid of a process that has exited (and been reaped): certainly not running. */
function deadPid(): number {
  const result = spawnSync(process.execPath, ['-e', '']);
  return result.pid;
}

function writeLock(path: string, fields: { pid: number; createdAt: number }): void {
  writeFileSync(
    `${path}.lock`,
    JSON.stringify({ ...fields, hostname: hostname(), token: 'someone-else' }),
  );
}

const posixOnly = process.platform === 'win32' ? it.skip : it;

describe('FileStateStore: the file', () => {
  it('writes version 1, pretty-printed, namespaces and keys sorted', async () => {
    await using s = scratchStore();
    await s.store.set('pins', 'b', { z: 1, a: [true] });
    await s.store.set('era', 'x', 'modern');
    await s.store.set('pins', 'a', null);
    expect(readFileSync(s.path, 'utf8')).toBe(
      `${JSON.stringify(
        {
          version: 1,
          namespaces: { era: { x: 'modern' }, pins: { a: null, b: { a: [true], z: 1 } } },
        },
        null,
        2,
      )}\n`,
    );
    await s.store.delete('era', 'x');
    expect(JSON.parse(readFileSync(s.path, 'utf8'))).toEqual({
      version: 1,
      namespaces: { pins: { a: null, b: { a: [true], z: 1 } } },
    });
  });

  it('reads a file it did not write, and keeps unknown top-level members', async () => {
    await using s = scratchStore();
    writeFileSync(
      s.path,
      '{"note":"hand-written","version":1,"namespaces":{"era":{"fs":"legacy"},"empty":{}}}',
    );
    expect(await s.store.get('era', 'fs')).toBe('legacy');
    await s.store.set('era', 'gh', 'modern');
    expect(JSON.parse(readFileSync(s.path, 'utf8'))).toEqual({
      version: 1,
      note: 'hand-written',
      namespaces: { era: { fs: 'legacy', gh: 'modern' } },
    });
  });

  it('sees changes made through another store on the same file at once (no stale cache)', async () => {
    await using s = scratchStore();
    await using other = new FileStateStore({ path: s.path });
    expect(await s.store.get('ns', 'k')).toBeUndefined();
    await other.set('ns', 'k', 1);
    expect(await s.store.get('ns', 'k')).toBe(1);
    writeFileSync(s.path, '{"version":1,"namespaces":{"ns":{"k":2}}}');
    expect(await s.store.get('ns', 'k')).toBe(2);
    expect(await s.store.update<number>('ns', 'k', (n) => n! + 1)).toBe(3); // re-read under the lock
  });

  it('does not write when an update changes nothing', async () => {
    await using s = scratchStore();
    await s.store.set('ns', 'k', { a: 1, b: 2 });
    const before = statSync(s.path);
    await s.store.set('ns', 'k', { b: 2, a: 1 });
    await s.store.delete('ns', 'missing');
    expect(statSync(s.path).ino).toBe(before.ino); // every write renames a new file in
  });

  it('leaves no lock or temporary file behind', async () => {
    await using s = scratchStore();
    await Promise.all([s.store.set('a', 'b', 1), s.store.set('a', 'c', 2), s.store.get('a', 'b')]);
    expect(readdirSync(s.dir)).toEqual(['state.json']);
  });

  it('replaces the file atomically: a reader never sees half of it', async () => {
    await using s = scratchStore();
    // Big enough that a plain in-place write would be seen half-done.
    const payload = (n: number) =>
      Array.from({ length: 4000 }, (_, i) => `${n}-${i}-${'x'.repeat(40)}`);
    let writing = true;
    const writer = (async () => {
      try {
        for (let n = 0; n < 40; n++) await s.store.set('big', 'list', payload(n));
      } finally {
        writing = false;
      }
    })();
    let reads = 0;
    try {
      while (writing) {
        const text = await readFile(s.path, 'utf8').catch((error: unknown) => {
          if ((error as { code?: string }).code === 'ENOENT') return undefined; // before the first write
          throw error;
        });
        if (text === undefined) continue;
        const parsed = JSON.parse(text) as { namespaces: { big: { list: string[] } } };
        expect(parsed.namespaces.big.list).toHaveLength(4000);
        reads++;
      }
    } finally {
      await writer.catch(() => {}); // on a failed read, still let the writer finish first
    }
    await writer;
    expect(reads).toBeGreaterThan(0);
    expect(await s.store.get('big', 'list')).toEqual(payload(39));
  });

  posixOnly('creates the file 0600 and its directory 0700, and tightens a 0644 file', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'deep', 'er', 'state.json');
    await using store = new FileStateStore({ path });
    await store.set('tokens', 'fs', 'secret');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir.path, 'deep', 'er')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir.path, 'deep')).mode & 0o777).toBe(0o700);
    chmodSync(path, 0o644);
    await store.set('tokens', 'fs', 'rotated');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('defaults to <MCP_HOST_STATE_DIR>/state.json', async () => {
    using dir = tempDir();
    using _env = patchEnv({ MCP_HOST_STATE_DIR: dir.path });
    await using store = new FileStateStore();
    expect(store.path).toBe(join(dir.path, 'state.json'));
    expect(store.lockPath).toBe(join(dir.path, 'state.json.lock'));
  });
});

describe('FileStateStore: files it must not use', () => {
  it('refuses a file from a newer mcp-host and never writes it', async () => {
    await using s = scratchStore();
    const newer = '{"version":2,"namespaces":{"era":{"a":1}},"future":true}';
    writeFileSync(s.path, newer);
    for (const call of [
      () => s.store.get('era', 'a'),
      () => s.store.entries('era'),
      () => s.store.set('era', 'a', 2),
      () => s.store.delete('era', 'a'),
    ]) {
      const error = await rejection(call());
      expect(error.code).toBe('STATE_VERSION_UNSUPPORTED');
      expect(error.details).toMatchObject({ path: s.path, version: 2, supportedVersion: 1 });
      expect(error.message).toContain(s.path);
    }
    expect(readFileSync(s.path, 'utf8')).toBe(newer);
    expect(readdirSync(s.dir)).toEqual(['state.json']);
  });

  it.each([
    ['not JSON', '{"version":1,"namespaces":{'],
    ['empty', ''],
    ['an array', '[]'],
    ['without a version', '{"namespaces":{}}'],
    ['with a version that is a string', '{"version":"1","namespaces":{}}'],
    ['with version 0', '{"version":0,"namespaces":{}}'],
    ['without namespaces', '{"version":1}'],
    ['with a namespace that is not an object', '{"version":1,"namespaces":{"era":[1]}}'],
  ])('moves a corrupt file (%s) aside, warns, and starts empty', async (_label, content) => {
    await using s = scratchStore();
    writeFileSync(s.path, content);
    expect(await s.store.get('era', 'a')).toBeUndefined();
    const [aside, ...more] = readdirSync(s.dir).filter((name) => name !== 'state.json');
    expect(more).toEqual([]);
    expect(aside).toMatch(/^state\.json\.corrupt-\d{8}T\d{9}Z-\d+$/);
    expect(readFileSync(join(s.dir, aside!), 'utf8')).toBe(content); // kept, byte for byte
    expect(existsSync(s.path)).toBe(false);
    const warnings = s.logger.records.filter((r) => r.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fields).toMatchObject({
      path: s.path,
      movedTo: join(s.dir, aside!),
    });
    expect(String(warnings[0]!.fields?.problem)).toContain('is corrupt');
    // And it carries on: the next write makes a fresh file.
    await s.store.set('era', 'a', 'modern');
    expect(await s.store.get('era', 'a')).toBe('modern');
  });

  it('quarantines a corrupt file met by an update too, once', async () => {
    await using s = scratchStore();
    writeFileSync(s.path, 'garbage');
    await Promise.all([
      s.store.update<number>('ns', 'n', (n) => (n ?? 0) + 1),
      s.store.update<number>('ns', 'n', (n) => (n ?? 0) + 1),
    ]);
    expect(await s.store.get('ns', 'n')).toBe(2);
    expect(readdirSync(s.dir).filter((name) => name.includes('.corrupt-'))).toHaveLength(1);
  });

  it("with corruptFile: 'fail', refuses a corrupt file with STATE_CORRUPT and leaves it be", async () => {
    await using s = scratchStore({ corruptFile: 'fail' });
    writeFileSync(s.path, '{oops');
    for (const call of [() => s.store.get('ns', 'k'), () => s.store.set('ns', 'k', 1)]) {
      const error = await rejection(call());
      expect(error.code).toBe('STATE_CORRUPT');
      expect(error.message).toContain(`state file '${s.path}' is corrupt: not JSON`);
      expect(error.details).toEqual({ path: s.path });
    }
    expect(readFileSync(s.path, 'utf8')).toBe('{oops');
    expect(readdirSync(s.dir)).toEqual(['state.json']);
  });

  it('reports a path it cannot use as STATE_IO_FAILED, naming it', async () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, 'a-directory'));
    await using store = new FileStateStore({ path: join(dir.path, 'a-directory') });
    const read = await rejection(store.get('ns', 'k'));
    expect(read).toMatchObject({ code: 'STATE_IO_FAILED', details: { errno: 'EISDIR' } });
    expect(read.message).toContain(join(dir.path, 'a-directory'));

    writeFileSync(join(dir.path, 'a-file'), '');
    await using below = new FileStateStore({ path: join(dir.path, 'a-file', 'state.json') });
    const write = await rejection(below.set('ns', 'k', 1));
    expect(write.code).toBe('STATE_IO_FAILED');
    expect(write.details).toMatchObject({
      path: join(dir.path, 'a-file'),
      operation: 'create its directory',
      errno: expect.any(String), // EEXIST or ENOTDIR, by platform
    });
  });

  it.each([
    [{ lockTimeoutMs: -1 }],
    [{ lockTimeoutMs: Number.NaN }],
    [{ staleLockMs: 0 }],
    [{ staleLockMs: Infinity }],
    [{ corruptFile: 'ignore' as 'fail' }],
  ])('refuses bad options %j with INVALID_ARGUMENT', (options) => {
    expect(() => new FileStateStore({ path: 'x', ...options })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});

describe('FileStateStore: the lock', () => {
  it('breaks a lock left by a dead process at once', async () => {
    await using _guard = leakGuard();
    await using s = scratchStore({ staleLockMs: 3_600_000, lockTimeoutMs: 5_000 });
    const pid = deadPid();
    writeLock(s.path, { pid, createdAt: Date.now() });
    await s.store.set('ns', 'k', 1);
    expect(await s.store.get('ns', 'k')).toBe(1);
    expect(readdirSync(s.dir)).toEqual(['state.json']);
    const warning = s.logger.records.find((r) => r.message === 'broke a stale state lock');
    expect(warning?.fields).toMatchObject({ holderPid: pid });
  });

  it('breaks a lock of a live process once it is older than staleLockMs', async () => {
    await using _guard = leakGuard();
    await using s = scratchStore({ staleLockMs: 60_000 });
    writeLock(s.path, { pid: process.pid, createdAt: Date.now() - 120_000 });
    await s.store.set('ns', 'k', 1);
    expect(readdirSync(s.dir)).toEqual(['state.json']);
  });

  it('breaks an empty lock file (its holder died before writing it) once it is old', async () => {
    await using _guard = leakGuard();
    await using s = scratchStore({ staleLockMs: 60_000 });
    writeFileSync(`${s.path}.lock`, '');
    const old = new Date(Date.now() - 120_000);
    utimesSync(`${s.path}.lock`, old, old);
    await s.store.set('ns', 'k', 1);
    expect(await s.store.get('ns', 'k')).toBe(1);
  });

  it('waits for a live holder up to lockTimeoutMs, then fails with STATE_LOCK_TIMEOUT', async () => {
    await using _guard = leakGuard(); // also: no timer outlives the wait
    await using s = scratchStore({ lockTimeoutMs: 100, staleLockMs: 60_000 });
    await s.store.set('ns', 'k', 'before');
    writeLock(s.path, { pid: process.pid, createdAt: Date.now() });
    const error = await rejection(s.store.set('ns', 'k', 'after'));
    expect(error.code).toBe('STATE_LOCK_TIMEOUT');
    expect(error.permanent).toBe(false);
    expect(error.details).toMatchObject({
      path: s.path,
      lockPath: `${s.path}.lock`,
      holderPid: process.pid,
      lockTimeoutMs: 100,
    });
    expect((error.details as { waitedMs: number }).waitedMs).toBeGreaterThanOrEqual(100);
    expect(s.logger.records.some((r) => r.message === 'state lock busy, waiting')).toBe(true);
    // The live holder's lock was not broken, the file not touched; reads still work.
    expect(JSON.parse(readFileSync(`${s.path}.lock`, 'utf8'))).toMatchObject({
      token: 'someone-else',
    });
    expect(await s.store.get('ns', 'k')).toBe('before');
  });

  it('with lockTimeoutMs 0, tries exactly once', async () => {
    await using _guard = leakGuard();
    await using s = scratchStore({ lockTimeoutMs: 0 });
    writeLock(s.path, { pid: process.pid, createdAt: Date.now() });
    expect((await rejection(s.store.delete('ns', 'k'))).code).toBe('STATE_LOCK_TIMEOUT');
    expect(s.logger.records).toEqual([]);
  });
});

describe('FileStateStore: close', () => {
  it('lets operations under way finish, then refuses new ones', async () => {
    await using s = scratchStore();
    const pending = s.store.update<number>('ns', 'n', (n) => (n ?? 0) + 1);
    const closing = s.store.close();
    expect((await rejection(s.store.get('ns', 'n'))).code).toBe('STATE_CLOSED');
    expect(await pending).toBe(1);
    await closing;
    await using reopened = new FileStateStore({ path: s.path });
    expect(await reopened.get('ns', 'n')).toBe(1);
  });
});
