/**
 * `--view <name>` on `mcp-host tools` and `mcp-host call`, on the built binary: the views of the
 * config (`views:`) narrow what is listed and what may be called, and a view's result budget
 * applies to its calls; an unknown view is a usage error naming it, before any server starts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { leakGuard } from '../helpers/leak-guard.js';
import { ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/servers/huge-result.mjs', import.meta.url));

function config(dir: string): string {
  const file = join(dir, 'mcp.yaml');
  const server = (name: string) => [
    `  ${name}:`,
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(FIXTURE)}]`,
  ];
  writeFileSync(
    file,
    [
      'servers:',
      ...server('left'),
      ...server('right'),
      'views:',
      '  small:',
      '    servers: [left]',
      '    block: [left/claims-cut]',
      '    maxResultBytes: 1000',
      '  rightonly:',
      '    allow: [right/*]',
      '',
    ].join('\n'),
  );
  return file;
}

beforeAll(() => ensureBuiltCli());

describe('mcp-host tools and call --view', () => {
  it('lists only the view’s tools', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = config(dir.path);
    const all = await runCli(['--config', file, '--json', 'tools'], { cwd: dir.path });
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout).result).toHaveLength(4);

    const small = await runCli(['--config', file, '--json', 'tools', '--view', 'small'], {
      cwd: dir.path,
    });
    expect(small.code).toBe(0);
    expect(
      (JSON.parse(small.stdout).result as { name: string }[]).map((tool) => tool.name),
    ).toEqual(['mcp__left__big']);
    const right = await runCli(['--config', file, '--json', 'tools', '--view', 'rightonly'], {
      cwd: dir.path,
    });
    expect(
      (JSON.parse(right.stdout).result as { name: string }[]).map((tool) => tool.name).sort(),
    ).toEqual(['mcp__right__big', 'mcp__right__claims-cut']);
  });

  it('refuses a call outside the view, and cuts to the view’s budget inside it', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = config(dir.path);
    const call = (target: string, view: string) =>
      runCli(['--config', file, 'call', target, '--arg', 'bytes=20000', '--view', view], {
        cwd: dir.path,
      });

    for (const [target, view] of [
      ['right/big', 'small'],
      ['left/claims-cut', 'small'],
      ['mcp__left__big', 'rightonly'],
    ] as const) {
      const refused = await call(target, view);
      expect(refused.code).toBe(5);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain(`not in view '${view}'`);
    }

    const cut = await call('left/big', 'small');
    expect(cut.code).toBe(0);
    expect(cut.stderr).toMatch(/the result was cut to the 1000 B result budget/);
    const whole = await call('right/big', 'rightonly');
    expect(whole.code).toBe(0);
    expect(whole.stderr).toBe('');
    expect(whole.stdout.length).toBeGreaterThanOrEqual(20_000);
  });

  it('an unknown view is a usage error naming it and the views there are', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = config(dir.path);
    for (const command of [['tools'], ['call', 'left/big']]) {
      const run = await runCli(['--config', file, ...command, '--view', 'nope'], {
        cwd: dir.path,
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("no view is named 'nope' (configured: small, rightonly)");
    }
  });
});
