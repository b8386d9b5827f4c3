/**
 * Discarding a 100 MiB result costs a fresh host process little memory: a child process (spawned
 * here, so nothing else of the test run is in its memory) connects an McpClient to a server that
 * answers a call with a single 100 MiB line, and reports its peak resident set size
 * (`maxRSS`) before and after the call. The call fails with MESSAGE_TOO_LARGE naming its
 * request, and the connection keeps working.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../helpers/leak-guard.js';
import { MiB } from '../helpers/memory.js';

/** The bound: what reading and discarding 100 MiB may add to the process's peak. */
const MAX_GROWTH_MIB = 32;

interface Report {
  beforeKiB: number;
  afterKiB: number;
  error: { code?: string; requestId?: number | string; message?: string; unexpected?: string };
  echo: unknown;
  stats: Record<string, number>;
  serverPid: number;
}

describe('discarding a 100 MiB result', () => {
  it(`raises a fresh host's peak memory by at most ${MAX_GROWTH_MIB} MiB; the call fails naming its request; the connection works after`, async () => {
    await using guard = leakGuard();
    const hostScript = fileURLToPath(
      new URL('../fixtures/hosts/discards-oversized-result.ts', import.meta.url),
    );
    const host = spawn(process.execPath, ['--import', 'tsx', hostScript], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    guard.trackPid(host.pid);
    let output = '';
    let errors = '';
    host.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    host.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
    const [code] = (await once(host, 'exit')) as [number | null];
    expect(errors).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(output) as Report;
    guard.trackPid(report.serverPid);

    expect(report.error).toMatchObject({
      code: 'MESSAGE_TOO_LARGE',
      requestId: expect.any(Number),
    });
    expect(report.error.message).toContain("server 'oversized-result'");
    expect(report.error.message).toContain('over the 16777216-byte limit');
    expect(report.echo).toMatchObject({ content: [{ type: 'text', text: 'still connected' }] });
    expect(report.stats).toMatchObject({ oversizedMessages: 1, junkMessages: 0 });

    const growthMiB = ((report.afterKiB - report.beforeKiB) * 1024) / MiB;
    console.log(
      `[memory] peak RSS (maxRSS) growth of a fresh host discarding a 100 MiB result: ${growthMiB.toFixed(1)} MiB`,
    );
    expect(growthMiB).toBeLessThanOrEqual(MAX_GROWTH_MIB);
  });
});
