/**
 * `servers enable|disable` on the built CLI edits only the server's `enabled` line in a YAML
 * file: every other byte (flow sequences written `[x]`, inline comments, blank lines, other
 * servers) stays as written, in table and JSON mode.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

beforeAll(() => ensureBuiltCli());

const original = [
  '# team servers',
  'servers:',
  '  first:',
  '    command: node     # the runtime',
  "    args: [x.mjs, '--flag']",
  '',
  '  second:',
  '    command: npx # from the registry',
  '    args: [-y,   pkg]',
  '    enabled: true   # on by hand',
  '  third: {command: node, args: [t.mjs]}',
  '',
].join('\n');

describe('servers enable|disable keep the rest of the file byte for byte', () => {
  it('adds, flips and restores only the enabled line (table and JSON)', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(file, original);
    const run = (...args: string[]) => runCli(['--config', file, 'servers', ...args]);

    const disabled = await run('disable', 'first');
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toContain('first: disabled in');
    expect(readFileSync(file, 'utf8')).toBe(
      original.replace('  first:\n', '  first:\n    enabled: false\n'),
    );
    const enabled = await run('enable', 'first', '--json');
    expect(enabled.code).toBe(0);
    expect(JSON.parse(enabled.stdout)).toEqual({
      result: { name: 'first', enabled: true, file, changed: true },
    });
    expect(readFileSync(file, 'utf8')).toBe(
      original.replace('  first:\n', '  first:\n    enabled: true\n'),
    );

    writeFileSync(file, original);
    expect((await run('disable', 'second')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(
      original.replace('enabled: true   # on by hand', 'enabled: false   # on by hand'),
    );
    expect((await run('disable', 'third', '--json')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(
      original
        .replace('enabled: true   # on by hand', 'enabled: false   # on by hand')
        .replace('{command: node', '{enabled: false, command: node'),
    );
    const list = await runCli(['--config', file, 'servers', 'list', '--json']);
    const rows = (JSON.parse(list.stdout) as { result: { name: string; enabled: boolean }[] })
      .result;
    expect(rows.map((r) => [r.name, r.enabled])).toEqual([
      ['first', true],
      ['second', false],
      ['third', false],
    ]);
  });
});
