/**
 * `mcp-host watch` on the built binary: NDJSON with `--format json`, aligned lines for a person
 * otherwise, one host event each (the server connecting, its tools, ready with its pid), until
 * SIGINT, which closes the server, or until nobody reads its output (EPIPE), which does too.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, it } from 'vitest';
import { leakGuard } from '../helpers/leak-guard.js';
import { isRunning, waitUntilGone } from '../helpers/processes.js';
import { cliEnv, cliPath, ensureBuiltCli, repoRoot } from '../helpers/run-built-cli.js';
import { officialServers } from '../helpers/mcp-servers.js';
import { tempDir } from '../helpers/scratch.js';

const everything = officialServers.everything.script;

beforeAll(() => ensureBuiltCli());

/**
 * Starts `mcp-host watch` on `file` with its output piped; `exited` is its exit code. Disposing
 * sends SIGINT if it is still running, so a test that fails half-way leaves no watcher behind.
 */
function watch(file: string, cwd: string, flags: readonly string[] = []) {
  const child = spawn(process.execPath, [cliPath, 'watch', '--config', file, ...flags], {
    cwd,
    env: cliEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return {
    child,
    exited,
    [Symbol.dispose]() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    },
  };
}

describe('mcp-host watch', () => {
  it('prints NDJSON events until SIGINT, which closes the servers', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(
      file,
      `servers:\n  fine:\n    command: node\n    args: ['${everything}', stdio]\n`,
      { mode: 0o600 },
    );
    using watching = watch(file, dir.path, ['--format', 'json']);
    const { child, exited } = watching;
    const events: Record<string, unknown>[] = [];
    const lines = createInterface({ input: child.stdout });
    let pid: number | undefined;
    for await (const line of lines) {
      const event = JSON.parse(line) as Record<string, unknown>;
      events.push(event);
      if (event.type === 'server' && event.state === 'ready') {
        pid = event.pid as number;
        break;
      }
    }
    child.kill('SIGINT');
    const code = await exited;
    expect(code).toBe(130);
    expect(events.find((e) => e.type === 'server' && e.state === 'connecting')).toBeDefined();
    const tools = events.find((e) => e.type === 'tools') as { added: string[] } | undefined;
    expect(tools?.added).toContain('mcp__fine__echo');
    expect(pid).toBeGreaterThan(0);
    expect(await waitUntilGone([pid!], 5_000)).toEqual([]);
  });

  it('prints one aligned line per event for a person, until SIGINT', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(
      file,
      `servers:\n  fine:\n    command: node\n    args: ['${everything}', stdio]\n`,
      { mode: 0o600 },
    );
    using watching = watch(file, dir.path);
    const { child, exited } = watching;
    const lines: string[] = [];
    for await (const line of createInterface({ input: child.stdout })) {
      lines.push(line);
      if (/\bready\b/.test(line)) break;
    }
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const ready = lines.find((line) => /\bready\b/.test(line))!;
    expect(ready).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3}\s+server\s+fine\s+ready\s+pid (\d+), legacy, \d+ tools$/,
    );
    expect(lines.some((line) => /\btools\s+fine\s+\+\d+/.test(line))).toBe(true);
    expect(lines.join('\n')).not.toContain('\u001b['); // piped: no colour
    const pid = Number(/pid (\d+)/.exec(ready)![1]);
    expect(await waitUntilGone([pid], 5_000)).toEqual([]);
  });

  it('ends when its reader goes away (| head -1): the next write closes every server', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    const echo = join(repoRoot, 'test', 'fixtures', 'mcp', 'legacy-sdk-server.mjs');
    writeFileSync(
      file,
      `servers:\n  one:\n    command: node\n    args: ['${echo}']\n  two:\n    command: node\n    args: ['${echo}']\n`,
      { mode: 0o600 },
    );
    using watching = watch(file, dir.path, ['--json']);
    const { child, exited } = watching;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const pids = new Map<string, number>();
    for await (const line of createInterface({ input: child.stdout })) {
      const event = JSON.parse(line) as {
        type: string;
        state?: string;
        server: string;
        pid?: number;
      };
      if (event.type === 'server' && event.state === 'ready') pids.set(event.server, event.pid!);
      if (pids.size === 2) break;
    }
    // The reader goes away; the next event (server one crashing) finds the pipe closed.
    child.stdout.destroy();
    process.kill(pids.get('one')!, 'SIGKILL');
    expect(await exited).toBe(0);
    expect(await waitUntilGone([...pids.values()], 5_000)).toEqual([]);
    expect(isRunning(child.pid!)).toBe(false);
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
  });

  it('supervises: a server that crashes is restarted with backoff, each step an event', async () => {
    await using _guard = leakGuard();
    const supervised = join(repoRoot, 'test', 'fixtures', 'servers', 'supervised.mjs');
    for (const json of [true, false]) {
      using dir = tempDir();
      const file = join(dir.path, 'mcp.yaml');
      // The first start exits (code 5) once it has listed its tools; the restarted one stays up.
      const marker = join(dir.path, 'crashed-once');
      writeFileSync(
        file,
        `servers:\n  flaky:\n    command: node\n    args: ['${supervised}', '--crash-once=${marker}']\n`,
        { mode: 0o600 },
      );
      using watching = watch(file, dir.path, json ? ['--json'] : []);
      const { child, exited } = watching;
      // Not restarted within a generous bound: stop it, and the checks below say what was seen.
      const bound = setTimeout(() => child.kill('SIGINT'), 20_000);
      const lines: string[] = [];
      for await (const line of createInterface({ input: child.stdout })) {
        lines.push(line);
        if (
          json
            ? line.includes('"state":"ready","pid"') && line.includes('"restartCount":1')
            : /\bready\b.*1 restarts/.test(line)
        )
          break;
      }
      clearTimeout(bound);
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      if (json) {
        const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
        const states = events.filter((e) => e.type === 'server').map((e) => e.state);
        // Ready once before the crash, unless the exit is seen before the listing's answer.
        expect(states.slice(0, 2)).toEqual(['idle', 'connecting']);
        expect(states.slice(-3)).toEqual(['restarting', 'connecting', 'ready']);
        const restarting = events.find((e) => e.state === 'restarting')!;
        expect(restarting).toMatchObject({
          restartCount: 0,
          nextRetryAt: expect.any(String),
          error: { code: 'PROCESS_EXITED' },
        });
        const ready = events.at(-1)!;
        expect(ready.restartCount).toBe(1);
        const crashed = Number(readFileSync(marker, 'utf8'));
        expect(ready.pid).not.toBe(crashed);
        expect(await waitUntilGone([crashed, ready.pid as number], 5_000)).toEqual([]);
      } else {
        const text = lines.join('\n');
        expect(text).toMatch(
          /\bflaky\s+restarting\s+retry at \d\d:\d\d:\d\d, PROCESS_EXITED: process exited with code 5/,
        );
        expect(text).toMatch(/\bflaky\s+ready\s+pid \d+, legacy, 2 tools, 1 restarts$/m);
        const pid = Number(/ready\s+pid (\d+), legacy, 2 tools, 1 restarts/.exec(text)![1]);
        expect(await waitUntilGone([pid], 5_000)).toEqual([]);
      }
    }
  });
});
