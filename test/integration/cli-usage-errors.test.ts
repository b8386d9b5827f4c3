/**
 * Usage errors that the command-line parser finds (an unknown command or option, a missing
 * argument or command, an invalid option value) on the built binary: in JSON mode (`--json`,
 * `--format json`, `MCP_HOST_FORMAT=json`) they are the one line `{"error":{...}}` on stderr that
 * every other failure prints, with nothing on stdout; in table mode the parser's text as before.
 * Exit 1 either way.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

beforeAll(() => ensureBuiltCli());

const cases: [string[], RegExp][] = [
  [['frobnicate'], /^unknown command 'frobnicate'$/],
  [['servr'], /^unknown command 'servr' \(Did you mean servers\?\)$/],
  [['tools', '--bogus'], /^unknown option '--bogus'$/],
  [['call'], /^missing required argument 'tool'$/],
  [
    ['servers', 'list', '--timeout', 'soon'],
    /^option '--timeout <duration>' argument 'soon' is invalid\. /,
  ],
  [['call', 'a/b', '--max-result-bytes', 'lots'], /'lots' is not a whole number of bytes/],
  [
    ['config'],
    /^missing command: mcp-host config takes validate, show, import, print \(see mcp-host config --help\)$/,
  ],
  [[], /^missing command: mcp-host takes servers, tools, /],
];

describe('a usage error in JSON mode is one JSON error line', () => {
  it.each(cases)('%j', async (args, message) => {
    using dir = tempDir();
    for (const json of [['--json'], ['--format', 'json']])
      for (const argv of [
        [...args, ...json],
        [...json, ...args],
      ]) {
        const run = await runCli(argv, { cwd: dir.path });
        expect(run.code).toBe(1);
        expect(run.stdout).toBe('');
        const lines = run.stderr.split('\n');
        expect(lines).toHaveLength(2);
        expect(lines[1]).toBe('');
        const { error } = JSON.parse(lines[0]!) as { error: Record<string, unknown> };
        expect(Object.keys(error)).toEqual(['code', 'message', 'server']);
        expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', server: null });
        expect(error.message).toMatch(message);
      }
  });

  it('JSON mode from the environment too (MCP_HOST_FORMAT=json)', async () => {
    using dir = tempDir();
    const env = cliEnv({ MCP_HOST_FORMAT: 'json' });
    const run = await runCli(['frobnicate'], { cwd: dir.path, env });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr)).toEqual({
      error: { code: 'INVALID_ARGUMENT', message: "unknown command 'frobnicate'", server: null },
    });
  });

  it('an option after the one that failed still chooses JSON', async () => {
    using dir = tempDir();
    const run = await runCli(['--timeout', 'soon', 'servers', 'list', '--json'], {
      cwd: dir.path,
    });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr).error.code).toBe('INVALID_ARGUMENT');
  });

  it('in table mode the text is unchanged; --help and --version still exit 0', async () => {
    using dir = tempDir();
    const text = await runCli(['tools', '--bogus'], { cwd: dir.path });
    expect(text).toMatchObject({
      code: 1,
      stdout: '',
      stderr: "error: unknown option '--bogus'\n(run with --help for usage)\n",
    });
    const group = await runCli(['config'], { cwd: dir.path });
    expect(group.code).toBe(1);
    expect(group.stderr).toMatch(/^Usage: mcp-host config/);
    const help = await runCli(['--json', '--help'], { cwd: dir.path });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: mcp-host/);
    const version = await runCli(['--json', '--version'], { cwd: dir.path });
    expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n', stderr: '' });
  });
});
