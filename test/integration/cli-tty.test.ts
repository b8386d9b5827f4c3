/**
 * The built CLI on a terminal and through a pipe. Under a pseudo-terminal (`script` from
 * util-linux) it colours its output and shows the progress line while servers are checked or
 * connected; piped, the same commands write neither colours nor the progress line. `doctor` on a
 * terminal asks for an `${input:…}` nobody gave, as the other commands do.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ensureBuiltCli, repoRoot, runCli } from '../helpers/run-built-cli.js';
import { hasScript, onTerminal } from '../helpers/terminal.js';
import { tempDir } from '../helpers/scratch.js';

const ESC = '\x1b[';

function config(dir: string): string {
  const file = join(dir, 'mcp.yaml');
  writeFileSync(
    file,
    [
      'servers:',
      '  hangs:',
      '    command: node',
      `    args: ['${join(repoRoot, 'test', 'fixtures', 'servers', 'never-answers.mjs')}']`,
      '  missing:',
      '    command: mcp-host-test-no-such-command',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return file;
}

beforeAll(() => ensureBuiltCli());

describe.skipIf(!hasScript)('on a terminal and piped', () => {
  it('doctor: colours and the progress line on a TTY, none when piped', async () => {
    using dir = tempDir();
    const file = config(dir.path);
    const args = ['doctor', '--config', file, '--timeout', '1s'];
    const tty = await onTerminal(args);
    expect(tty.code).toBe(4);
    expect(tty.output).toContain(`${ESC}31m`); // red ✗
    expect(tty.output).toContain('checking'); // the progress line…
    expect(tty.output).toContain('\r\x1b[2K'); // …rewritten in place and cleared
    expect(tty.output).toMatch(/handshake-timeout/);

    const piped = await runCli(args, { cwd: dir.path });
    expect(piped.code).toBe(4);
    expect(piped.stdout + piped.stderr).not.toContain('\x1b');
    expect(piped.stderr).not.toContain('checking');
    expect(piped.stdout).toMatch(/✗ hangs +handshake-timeout/);
  });

  it('servers status: the "connecting" progress line on a TTY, not when piped', async () => {
    using dir = tempDir();
    const file = config(dir.path);
    const args = ['servers', 'status', '--config', file, '--timeout', '1s'];
    const tty = await onTerminal(args);
    expect(tty.output).toMatch(/connecting \d\/2 servers/);
    expect(tty.output).toContain(ESC);
    const piped = await runCli(args, { cwd: dir.path });
    expect(piped.stderr).not.toContain('connecting');
    expect(piped.stdout + piped.stderr).not.toContain('\x1b');
  });

  it('--no-color and NO_COLOR turn colours off on a TTY', async () => {
    using dir = tempDir();
    const file = config(dir.path);
    const flag = await onTerminal(['doctor', 'missing', '--config', file, '--no-color']);
    expect(flag.output).toContain('command-not-found');
    expect(flag.output).not.toContain(`${ESC}31m`);
    const env = await onTerminal(['doctor', 'missing', '--config', file], {
      env: cliEnv({ NO_COLOR: '1' }),
    });
    expect(env.output).not.toContain(`${ESC}31m`);
  });

  it('config validate colours its severities on a TTY only', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(file, 'servers:\n  a:\n    command: x\n    timeouts: { connectMs: -1 }\n');
    const tty = await onTerminal(['config', 'validate', file]);
    expect(tty.code).toBe(1);
    expect(tty.output).toContain(`${ESC}31merror:`);
    const piped = await runCli(['config', 'validate', file]);
    expect(piped.stdout).not.toContain('\x1b');
    expect(piped.stdout).toContain('error:');
  });

  it('doctor asks for an input nobody gave, once, and does not echo it (table and JSON)', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(
      file,
      [
        'inputs:',
        '  - id: token',
        '    type: promptString',
        '    description: Echo token',
        '    password: true',
        'servers:',
        // Two servers, one input: asked once for the whole config.
        ...['one', 'two'].flatMap((name) => [
          `  ${name}:`,
          '    command: node',
          `    args: ['${join(repoRoot, 'test', 'fixtures', 'servers', 'typed-args.mjs')}']`,
          '    env:',
          '      TOKEN: ${input:token}',
        ]),
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const secret = 'tty-answer-5d1c';
    for (const mode of [[], ['--json']]) {
      const run = await onTerminal(['doctor', '--config', file, '--timeout', '10s', ...mode], {
        answer: { prompt: "Echo token (server 'one'): ", text: secret },
      });
      expect(run.asked).toBe(1);
      expect(run.output).not.toContain('input-required');
      // eslint-disable-next-line no-control-regex
      const plain = run.output.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
      expect(plain).toMatch(
        mode.length === 0 ? /✓ two +ok/ : /"server":"two","transport":"stdio".*"status":"ok"/,
      );
      expect(run.output).not.toContain(secret);
      expect(run.code).toBe(0);
    }
    // Piped, nothing is asked: the input is required (exit 3), as the advice says.
    const piped = await runCli(['doctor', '--config', file], { cwd: dir.path });
    expect(piped.code).toBe(3);
    expect(piped.stdout).toMatch(/input-required/);
    expect(piped.stdout).toContain('run the command on a terminal to be asked');
  });
});
