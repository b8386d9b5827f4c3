/**
 * `config validate` reads and parses each file once: the config is a named pipe (FIFO), which
 * can be read only once, and the positions of an unset variable (which needed a second read
 * before) still come out at `file:line:column`, in table and JSON mode.
 */
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltCli, runCli, type CliRun } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

const TEXT = 'servers:\n  a:\n    command: node\n    env:\n      X: ${MCP_HOST_TEST_READ_ONCE}\n';

beforeAll(() => ensureBuiltCli());

/** Runs `args` with `file` a FIFO that gives TEXT to its first reader only. */
async function withFifo(dir: string, args: (file: string) => string[]): Promise<CliRun> {
  const file = join(dir, `mcp-${Math.random().toString(36).slice(2)}.yaml`);
  execFileSync('mkfifo', [file]);
  // The write finishes when the CLI opens the pipe and reads it; a second read would wait for
  // another writer forever: the run is then killed (SIGKILL: a blocked read outlasts SIGTERM's
  // graceful close) and fails as "did not exit".
  let written = false;
  const writing = writeFile(file, TEXT).then(() => (written = true));
  const run = await runCli(args(file), { cwd: dir, timeoutMs: 15_000, killSignal: 'SIGKILL' });
  // A CLI that failed before opening the pipe leaves the write waiting for a reader (a threadpool
  // thread held): be that reader, without blocking (O_NONBLOCK), so the write ends.
  if (!written) await (await open(file, constants.O_RDONLY | constants.O_NONBLOCK)).close();
  await writing;
  return run;
}

describe.runIf(process.platform !== 'win32')('config validate reads each file once', () => {
  it('an unset variable in a FIFO config is placed at file:line:column (table and JSON)', async () => {
    using dir = tempDir();
    const table = await withFifo(dir.path, (file) => ['config', 'validate', file]);
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(
      /mcp-\w+\.yaml:5:10: error: servers\.a\.env\.X: variable MCP_HOST_TEST_READ_ONCE is not set/,
    );
    const json = await withFifo(dir.path, (file) => ['config', 'validate', file, '--json']);
    expect(json.code).toBe(1);
    const { result } = JSON.parse(json.stdout) as {
      result: { diagnostics: { line?: number; column?: number; kind: string }[] };
    };
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ kind: 'unset-variable', line: 5, column: 10 }),
    ]);
  });
});
