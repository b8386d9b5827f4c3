import type { Command } from 'commander';
import { delimiter } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readAction } from '../command.js';
import { createProgram } from '../program.js';
import { parseQuickCommand, type QuickCommand } from './quick-command.js';

/** The variables the global options read, and those `readGlobalOptions` looks at. */
const VARIABLES = [
  'MCP_HOST_CONFIG',
  'MCP_HOST_FORMAT',
  'MCP_HOST_JSON',
  'MCP_HOST_TIMEOUT',
  'MCP_HOST_CONCURRENCY',
  'MCP_HOST_VERBOSE',
  'MCP_HOST_QUIET',
  'MCP_HOST_NO_COLOR',
  'NO_COLOR',
];

type Env = Record<string, string>;

/** Sets exactly `env` of the variables above (commander reads `process.env`). */
function useEnv(env: Env): void {
  for (const name of VARIABLES) vi.stubEnv(name, env[name]);
}

/** What the full program (commander) hands the command's action for `argv`, as a QuickCommand. */
async function commanderReading(argv: string[]): Promise<QuickCommand> {
  const program = createProgram();
  program.configureOutput({ writeErr: () => {}, writeOut: () => {}, outputError: () => {} });
  let read: QuickCommand | undefined;
  const capture = (command: Command) => {
    for (const sub of command.commands) {
      sub.action((...args: unknown[]) => {
        const { command: leaf, options, positional, globals } = readAction<object>(args);
        read = {
          command: leaf.name() as QuickCommand['command'],
          globals,
          args: positional,
          options: { ...options },
        };
      });
      capture(sub);
    }
  };
  capture(program);
  await program.parseAsync(argv, { from: 'user' });
  if (read === undefined) throw new Error(`commander ran no command for ${argv.join(' ')}`);
  return read;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('parseQuickCommand', () => {
  // Each line is read as commander reads it (the same command, arguments, options and globals).
  it.each(
    (<Array<[string[], Env?]>>[
      [['--config', 'a.json', 'tools']],
      [['tools']],
      [['tools', 'srv']],
      [['tools', '--view', 'v']],
      [['tools', '--view=v', 'srv']],
      [['tools', '--view', 'a', '--view', 'b']],
      [['-c', 'a.json', '-c', 'b.json', 'tools', '--json']],
      [['tools', '--config', 'a.json', '--config=b.json']],
      [['--config', `a.json${delimiter}${delimiter}b.json`, 'tools']],
      [['--config=', 'tools']],
      [['--format', 'json', 'tools', '-v', '-q', '--no-color']],
      [['--format=table', '--verbose', '--quiet', 'tools']],
      [['--timeout', '3s', '--concurrency', '2', 'tools']],
      [['--timeout=500ms', 'inspect', 'srv/tool/with/slashes']],
      [['inspect', 'srv']],
      [['call', 'srv/t', '--args', '{"a":1}']],
      [['call', 'srv/t', '-', '--raw']],
      [['call', 'srv/t', '--arg', 'a=1', '--arg', 'b=-2', '--max-result-bytes', '100']],
      [['call', 'srv/t', '--args', '-']],
      [['call', '--view', 'v', 'srv/t', '--max-result-bytes=0']],
      [['call', 'tools']],
      [['tools', 'call']],
      [['tools', '']],
      [['--config', 'tools', 'call', 'x']],
      [['tools'], { MCP_HOST_CONFIG: `a.json${delimiter}b.json` }],
      [['--config', 'c.json', 'tools'], { MCP_HOST_CONFIG: 'a.json' }],
      [['tools'], { MCP_HOST_JSON: '0', MCP_HOST_VERBOSE: 'yes', MCP_HOST_QUIET: 'off' }],
      [['tools'], { MCP_HOST_JSON: '1', MCP_HOST_NO_COLOR: 'false' }],
      [['--no-color', 'tools'], { MCP_HOST_NO_COLOR: '0' }],
      [['tools'], { MCP_HOST_NO_COLOR: '1', NO_COLOR: '' }],
      [['tools'], { NO_COLOR: '1' }],
      [['tools'], { MCP_HOST_TIMEOUT: '2s', MCP_HOST_CONCURRENCY: '3', MCP_HOST_FORMAT: 'json' }],
      [
        ['--timeout', '1s', '--format', 'table', 'tools'],
        { MCP_HOST_TIMEOUT: '2s', MCP_HOST_FORMAT: 'json' },
      ],
      [['tools', '-v'], { MCP_HOST_VERBOSE: '0' }],
    ]).map(([argv, env = {}]) => [argv, env] as const),
  )('%j, env %j, as commander reads it', async (argv, env) => {
    useEnv(env);
    const quick = parseQuickCommand(argv, process.env);
    expect(quick).toBeDefined();
    expect(quick).toEqual(await commanderReading(argv));
  });

  // Each is left to the full program: its help, another command, or what commander refuses or
  // reads in a way the quick path does not follow.
  it.each(
    (<Array<[string[], Env?]>>[
      [[]],
      [['--help']],
      [['-h']],
      [['tools', '--help']],
      [['call', '-h']],
      [['-V']],
      [['--version']],
      [['help', 'tools']],
      [['servers']],
      [['servers', 'list']],
      [['config', 'show']],
      [['tools', 'a', 'b']],
      [['inspect']],
      [['call']],
      [['call', 'a', 'b', 'c']],
      [['tools', '--view']],
      [['tools', '--view', '--json']],
      [['call', 'x', '--args', '-v']],
      [['--config']],
      [['--config', '-v', 'tools']],
      [['-vq', 'tools']],
      [['-cfile.json', 'tools']],
      [['-c=file.json', 'tools']],
      [['tools', '--', 'x']],
      [['tools', '--bogus']],
      [['tools', '-x']],
      [['tools', '-5']],
      [['inspect', '--view', 'v', 'srv']],
      [['--view', 'v', 'tools']],
      [['--raw', 'call', 'x']],
      [['--json=1', 'tools']],
      [['--no-color=1', 'tools']],
      [['--format', 'xml', 'tools']],
      [['--timeout', '5', 'tools']],
      [['--timeout', 'soon', 'tools']],
      [['--concurrency', '0', 'tools']],
      [['--concurrency', '1.5', 'tools']],
      [['call', 'x', '--max-result-bytes', '-1']],
      [['call', 'x', '--max-result-bytes', 'abc']],
      [['call', 'x', '--max-result-bytes', '99999999999999999999']],
      [['tools'], { MCP_HOST_FORMAT: 'xml' }],
      [['tools'], { MCP_HOST_TIMEOUT: 'soon' }],
      [['tools'], { MCP_HOST_CONCURRENCY: 'many' }],
    ]).map(([argv, env = {}]) => [argv, env] as const),
  )('leaves %j, env %j, to the full program', (argv, env) => {
    useEnv(env);
    expect(parseQuickCommand(argv, process.env)).toBeUndefined();
  });
});
