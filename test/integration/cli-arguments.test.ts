/**
 * Argument values on the built CLI: arguments the host would refuse before calling the server (a
 * required one missing, a value outside an enum) are a usage error (exit 1) naming the argument;
 * `--arg` keeps every digit (an untyped number that does not print back as written stays text, a
 * typed integer beyond 2^53 is refused); `--timeout` needs a unit and fits a timer.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { leakGuard } from '../helpers/leak-guard.js';
import { ensureBuiltCli, repoRoot, runCli } from '../helpers/run-built-cli.js';
import { tempDir, type TempDir } from '../helpers/scratch.js';

const fixture = join(repoRoot, 'test', 'fixtures', 'servers', 'typed-args.mjs');

function configDir(): TempDir {
  const dir = tempDir();
  writeFileSync(
    join(dir.path, 'mcp.yaml'),
    `servers:\n  t:\n    command: node\n    args: ['${fixture}']\n    env: { CALLS_FILE: calls.txt }\n    cwd: ${dir.path}\n`,
    { mode: 0o600 },
  );
  return dir;
}

interface JsonError {
  error: { code: string; message: string; server: string | null };
}

beforeAll(() => ensureBuiltCli());

describe('arguments the host refuses are a usage error', () => {
  const cases: [what: string, args: string[], names: string][] = [
    ['a required argument missing', ['--arg', 'id=1'], "required property 'mode'"],
    ['a value outside the enum', ['--arg', 'mode=medium'], '/mode must be equal to one of'],
  ];
  for (const [what, args, names] of cases)
    it(`${what}: exit 1 naming it, the server never called (table and JSON)`, async () => {
      await using _guard = leakGuard();
      using dir = configDir();
      const table = await runCli(['call', 't/record', ...args], { cwd: dir.path });
      expect(table.code).toBe(1);
      expect(table.stderr).toContain("error: server 't': tool 'record': invalid arguments");
      expect(table.stderr).toContain(names);
      expect(existsSync(join(dir.path, 'calls.txt'))).toBe(false);
      const json = await runCli(['call', 't/record', ...args, '--json'], { cwd: dir.path });
      expect(json.code).toBe(1);
      expect(json.stdout).toBe('');
      const { error } = JSON.parse(json.stderr.trim().split('\n').at(-1)!) as JsonError;
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', server: 't' });
      expect(error.message).toContain(names);
      expect(existsSync(join(dir.path, 'calls.txt'))).toBe(false);
    });
});

describe('--arg keeps every digit', () => {
  it('untyped numbers that would change stay text; a typed integer beyond 2^53 is refused', async () => {
    await using _guard = leakGuard();
    using dir = configDir();
    const sent = async (note: string): Promise<unknown> => {
      const run = await runCli(
        ['call', 't/record', '--arg', 'mode=fast', '--arg', `note=${note}`],
        {
          cwd: dir.path,
        },
      );
      expect(run.code).toBe(0);
      return (JSON.parse(run.stdout) as { note: unknown }).note;
    };
    expect(await sent('12345678901234567890')).toBe('12345678901234567890');
    expect(await sent('1e400')).toBe('1e400');
    expect(await sent('42')).toBe(42);
    expect(await sent('true')).toBe(true);
    // The server counts the calls it gets (what the refused ones above never reach).
    expect(readFileSync(join(dir.path, 'calls.txt'), 'utf8')).toBe('call\n'.repeat(4));
    const big = ['call', 't/record', '--arg', 'mode=fast', '--arg', 'id=9007199254740993'];
    const table = await runCli(big, { cwd: dir.path });
    expect(table.code).toBe(1);
    expect(table.stderr).toContain('error: --arg id: 9007199254740993 is beyond the integers');
    const json = await runCli([...big, '--json'], { cwd: dir.path });
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stderr) as JsonError).error.code).toBe('INVALID_ARGUMENT');
    const safe = await runCli(
      ['call', 't/record', '--arg', 'mode=fast', '--arg', 'id=9007199254740991'],
      {
        cwd: dir.path,
      },
    );
    expect(JSON.parse(safe.stdout)).toEqual({ mode: 'fast', id: 9007199254740991 });
  });
});

describe('--timeout', () => {
  const cases: [value: string, message: RegExp][] = [
    ['2147484s', /'2147484s' is longer than the longest timer \(2147483647 ms/],
    ['5', /'5' has no unit: write 5ms, 5s, 5m or 5h/],
  ];
  for (const [value, message] of cases)
    it(`--timeout ${value} is a usage error (table and JSON)`, async () => {
      using dir = configDir();
      const table = await runCli(['servers', 'status', '--timeout', value], { cwd: dir.path });
      expect(table.code).toBe(1);
      expect(table.stderr).toMatch(message);
      expect(table.stderr).not.toContain('TimeoutOverflowWarning');
      const json = await runCli(['servers', 'status', '--json', '--timeout', value], {
        cwd: dir.path,
      });
      expect(json.code).toBe(1);
      expect((JSON.parse(json.stderr) as JsonError).error.message).toMatch(message);
    });
});
