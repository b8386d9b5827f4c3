/**
 * `mcp-host call` and the host's result budget, on the built binary against a server whose
 * results are as large as asked (test/fixtures/servers/huge-result.mjs): a result cut to the
 * budget says so on stderr, with how to raise it (`--max-result-bytes`, `defaults.maxResultBytes`),
 * and carries `_meta["io.mcp-host/truncated"]` in JSON output; `--raw` prints the whole result
 * unless `--max-result-bytes` is given; a result within the budget, or with the budget raised or
 * off, is printed whole with no notice.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { leakGuard } from '../helpers/leak-guard.js';
import { ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/servers/huge-result.mjs', import.meta.url));
const MIB = 1024 * 1024;
const NOTICE =
  /^warning: the result was cut to the (.+) result budget \((.+) of (.+) kept\): --max-result-bytes <bytes> raises it \(0: no limit\), as does defaults\.maxResultBytes in the config$/m;

function config(dir: string, extra: string[] = []): string {
  const file = join(dir, 'mcp.yaml');
  writeFileSync(
    file,
    [
      ...extra,
      'servers:',
      '  huge:',
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(FIXTURE)}]`,
      '',
    ].join('\n'),
  );
  return file;
}

beforeAll(() => ensureBuiltCli());

describe('mcp-host call and the result budget', () => {
  it('a cut result says so on stderr, with how to raise the limit (table, JSON)', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = config(dir.path);
    const big = ['--config', file, 'call', 'huge/big', '--arg', `bytes=${2 * MIB}`];

    const text = await runCli(big, { cwd: dir.path });
    expect(text.code).toBe(0);
    expect(text.stderr.match(NOTICE)?.slice(1)).toEqual(['1.0 MiB', expect.any(String), '2.0 MiB']);
    expect(text.stdout.length).toBeLessThan(1.1 * MIB);
    expect(text.stdout).toMatch(/…\[truncated: .* of 2\.0 MiB shown; mcp-host result budget\]\n$/);

    const json = await runCli([...big, '--json'], { cwd: dir.path });
    expect(json.code).toBe(0);
    expect(json.stderr).toMatch(NOTICE);
    expect(JSON.parse(json.stdout).result._meta['io.mcp-host/truncated']).toMatchObject({
      originalBytes: 2 * MIB,
      maxBytes: MIB,
    });
  });

  it('--raw prints what the server returned, whole, with no notice (table and JSON mode)', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = config(dir.path, ['defaults:', '  maxResultBytes: 1000']);
    const big = ['--config', file, 'call', 'huge/big', '--arg', `bytes=${2 * MIB}`, '--raw'];
    for (const mode of [[], ['--json']]) {
      const raw = await runCli([...big, ...mode], { cwd: dir.path });
      expect(raw.code).toBe(0);
      expect(raw.stderr).toBe('');
      const printed = JSON.parse(raw.stdout);
      const result = mode.length === 0 ? printed : printed.result;
      expect(result.content[0].text).toHaveLength(2 * MIB);
      expect(result._meta).toEqual({ 'com.example/trace': 't-1' });
    }
    // The budget of the config still applies without --raw.
    const cut = await runCli(big.slice(0, -1), { cwd: dir.path });
    expect(cut.stderr.match(NOTICE)?.[1]).toBe('1000 B');
  });

  it('--max-result-bytes sets the budget: lower cuts more, 0 prints the whole result', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = config(dir.path);
    const big = ['--config', file, 'call', 'huge/big', '--arg', `bytes=${2 * MIB}`, '--raw'];

    const lower = await runCli([...big, '--max-result-bytes', '1000'], { cwd: dir.path });
    expect(lower.code).toBe(0);
    expect(lower.stderr.match(NOTICE)?.[1]).toBe('1000 B');
    expect(JSON.parse(lower.stdout)._meta['io.mcp-host/truncated'].maxBytes).toBe(1000);
    // --raw with --max-result-bytes: cut to it, marked in _meta, with the notice.
    expect(JSON.parse(lower.stdout)._meta).toEqual({
      'com.example/trace': 't-1',
      'io.mcp-host/truncated': {
        originalBytes: 2 * MIB,
        keptBytes: expect.any(Number),
        maxBytes: 1000,
        structuredContentDropped: false,
      },
    });

    const whole = await runCli([...big, '--max-result-bytes', '0'], { cwd: dir.path });
    expect(whole.code).toBe(0);
    expect(whole.stderr).toBe('');
    const result = JSON.parse(whole.stdout);
    expect(result.content[0].text).toHaveLength(2 * MIB);
    expect(result._meta).toEqual({ 'com.example/trace': 't-1' });
  });

  it('defaults.maxResultBytes in the config raises it too; a small result has no notice', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = config(dir.path, ['defaults:', `  maxResultBytes: ${4 * MIB}`]);
    const raised = await runCli(
      ['--config', file, 'call', 'huge/big', '--arg', `bytes=${2 * MIB}`, '--json'],
      { cwd: dir.path },
    );
    expect(raised.code).toBe(0);
    expect(raised.stderr).toBe('');
    expect(JSON.parse(raised.stdout).result.content[0].text).toHaveLength(2 * MIB);

    const small = await runCli(['--config', file, 'call', 'huge/big', '--arg', 'bytes=10'], {
      cwd: dir.path,
    });
    expect(small).toMatchObject({ code: 0, stdout: 'xxxxxxxxxx\n', stderr: '' });
  });

  it("a server's own claim of a cut is not believed: no notice", async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = config(dir.path);
    const run = await runCli(['--config', file, 'call', 'huge/claims-cut', '--raw'], {
      cwd: dir.path,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)._meta).toEqual({ 'com.example/trace': 't-2' });
  });
});
