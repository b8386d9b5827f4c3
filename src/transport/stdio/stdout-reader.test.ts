import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import { readStdout, STDOUT_READ_BYTES } from './stdout-reader.js';

/** A child that writes `mib` MiB of varied bytes in writes of varied sizes, then exits. */
const WRITER = `
const total = Number(process.argv[1]) * 1024 * 1024;
const bytes = Buffer.alloc(total);
for (let i = 0; i < total; i++) bytes[i] = (i * 31 + (i >> 8)) & 0xff;
let offset = 0;
let size = 1;
const next = () => {
  if (offset >= total) return;
  const end = Math.min(total, offset + size);
  size = (size * 7 + 13) % 200_000 + 1;
  process.stdout.write(bytes.subarray(offset, end), next);
  offset = end;
};
next();
`;

function expected(mib: number): string {
  const total = mib * 1024 * 1024;
  const bytes = Buffer.alloc(total);
  for (let i = 0; i < total; i++) bytes[i] = (i * 31 + (i >> 8)) & 0xff;
  return createHash('sha256').update(bytes).digest('hex');
}

describe('readStdout', () => {
  it("reads a child's stdout into one reused buffer: every byte, in order, then its end once", async () => {
    await using guard = leakGuard();
    const child = spawn(process.execPath, ['-e', WRITER, '5'], { stdio: ['pipe', 'pipe', 'pipe'] });
    guard.trackPid(child.pid);
    const hash = createHash('sha256');
    const chunks = new Set<ArrayBufferLike>();
    let largest = 0;
    const ends: boolean[] = [];
    const ended = new Promise<void>((resolve) => {
      const mode = readStdout(child.stdout, {
        onData: (chunk) => {
          hash.update(chunk);
          chunks.add(chunk.buffer);
          largest = Math.max(largest, chunk.length);
        },
        onEnd: (ended) => (ends.push(ended), resolve()),
      });
      expect(mode).toBe('reused-buffer');
    });
    await ended;
    await once(child, 'exit');
    expect(hash.digest('hex')).toBe(expected(5));
    expect(chunks.size).toBe(1); // one buffer, however many reads
    expect(largest).toBeLessThanOrEqual(STDOUT_READ_BYTES);
    expect(ends).toEqual([true]);
    child.stdin.destroy();
    child.stderr.destroy();
    child.stdout.destroy();
  });

  it('says it failed, once, when stdout is destroyed before its end', async () => {
    await using guard = leakGuard();
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    guard.trackPid(child.pid);
    const ends: boolean[] = [];
    const ended = new Promise<void>((resolve) => {
      readStdout(child.stdout, { onData: () => {}, onEnd: (e) => (ends.push(e), resolve()) });
    });
    child.stdout.destroy();
    await ended;
    child.kill('SIGKILL');
    await once(child, 'exit');
    child.stdin.destroy();
    child.stderr.destroy();
    expect(ends).toEqual([false]);
  });

  it("falls back to 'data' events for a stream without a pipe handle", async () => {
    const stream = new PassThrough();
    const seen: string[] = [];
    const ends: boolean[] = [];
    const mode = readStdout(stream, {
      onData: (chunk) => seen.push(Buffer.from(chunk).toString()),
      onEnd: (e) => ends.push(e),
    });
    expect(mode).toBe('data-events');
    stream.end('one line\n');
    await once(stream, 'end');
    expect(seen).toEqual(['one line\n']);
    expect(ends).toEqual([true]);
  });
});
