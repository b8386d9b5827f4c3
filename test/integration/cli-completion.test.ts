/**
 * `mcp-host completion`: the bash script, sourced into a real bash with `mcp-host` pointing at
 * the built binary, completes commands, subcommands, server names (from the line's --config) and
 * `server/tool` names; the zsh and fish scripts are generated from the same tree. Tool names with
 * spaces or `$(…)` come back escaped as they must be typed (and nothing in them runs); option
 * values are not taken for commands (`--concurrency 2`), `--format` offers its values, and no
 * names are offered where a value goes (`--arg`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, cliPath, ensureBuiltCli, repoRoot, runCli } from '../helpers/run-built-cli.js';
import { officialServers } from '../helpers/mcp-servers.js';
import { tempDir } from '../helpers/scratch.js';

const everything = officialServers.everything.script;

beforeAll(() => ensureBuiltCli());

/** Runs the bash completion function for `line` (completing its last word) and returns COMPREPLY. */
function completeBash(script: string, words: string[], cwd: string): string[] {
  const program = [
    `mcp-host() { '${process.execPath}' '${cliPath}' "$@"; }`,
    script,
    `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    '_mcp_host_complete',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  return execFileSync('bash', ['-c', program], { cwd, env: cliEnv(), encoding: 'utf8' })
    .split('\n')
    .filter((l) => l !== '');
}

describe('mcp-host completion', () => {
  it('bash: commands, subcommands, server and tool names', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(
      file,
      `servers:\n  fine:\n    command: node\n    args: ['${everything}', stdio]\n  other:\n    command: node\n    enabled: false\n`,
    );
    const { stdout: script, code } = await runCli(['completion', 'bash']);
    expect(code).toBe(0);
    execFileSync('bash', ['-n'], { input: script });

    expect(completeBash(script, ['mcp-host', 'do'], dir.path)).toEqual(['doctor']);
    expect(completeBash(script, ['mcp-host', 'config', ''], dir.path)).toEqual([
      'validate',
      'show',
      'import',
      'print',
    ]);
    expect(completeBash(script, ['mcp-host', '--config', file, 'doctor', ''], dir.path)).toEqual([
      'fine',
      'other',
    ]);
    expect(
      completeBash(script, ['mcp-host', '--config', file, 'servers', 'restart', 'f'], dir.path),
    ).toEqual(['fine']);
    const tools = completeBash(script, ['mcp-host', '--config', file, 'call', 'fine/e'], dir.path);
    expect(tools).toContain('fine/echo');
  });

  it('bash: names with spaces stay whole, option values are skipped or offered', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    const spaced = join(repoRoot, 'test', 'fixtures', 'servers', 'spaced-tools.mjs');
    writeFileSync(file, `servers:\n  sp:\n    command: node\n    args: ['${spaced}']\n`);
    const { stdout: script } = await runCli(['completion', 'bash']);
    const at = (...words: string[]) => completeBash(script, ['mcp-host', ...words], dir.path);

    // One reply per tool, escaped as it must be typed; the $(…) in a name is never run.
    expect(at('--config', file, 'call', 'sp/')).toEqual([
      'sp/look\\ up\\ word',
      'sp/look\\$\\(touch\\ INJECTED\\)',
      'sp/plain',
    ]);
    expect(at('--config', file, 'call', 'sp/look\\ ')).toEqual(['sp/look\\ up\\ word']);
    expect(existsSync(join(dir.path, 'INJECTED'))).toBe(false);

    // After --arg (and after the tool) no tool names: a value goes there.
    expect(at('--config', file, 'call', 'sp/plain', '--arg', '')).toEqual([]);
    expect(at('--config', file, 'call', 'sp/plain', '')).toEqual([]);
    // An option's value is not the command: completion goes on after --concurrency 2.
    expect(at('--concurrency', '2', 'do')).toEqual(['doctor']);
    expect(at('--concurrency', '2', '--config', file, 'doctor', '')).toEqual(['sp']);
    expect(at('--timeout', '3s', 'servers', 'st')).toEqual(['status']);
    // --format offers its values, also as --format=…
    expect(at('--format', '')).toEqual(['table', 'json']);
    expect(at('--format', 'j')).toEqual(['json']);
    expect(at('--format', '=', 't')).toEqual(['table']);
    expect(at('--format', 'json', 'too')).toEqual(['tools']);
  });

  it('zsh and fish scripts name the same commands; an unknown shell is a usage error', async () => {
    const zsh = await runCli(['completion', 'zsh']);
    expect(zsh.stdout).toMatch(/^#compdef mcp-host/);
    expect(zsh.stdout).toContain('doctor');
    const fish = await runCli(['completion', 'fish']);
    expect(fish.stdout).toContain("complete -c mcp-host -n __fish_use_subcommand -a '");
    expect(fish.stdout).toContain('__complete servers');
    const bad = await runCli(['completion', 'tcsh']);
    expect(bad.code).toBe(1);
  });
});
