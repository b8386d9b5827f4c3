/**
 * The built CLI on a terminal and through a pipe. Under a pseudo-terminal (`script` from
 * util-linux) it colours its output and shows the progress line while servers are checked or
 * connected; piped, the same commands write neither colours nor the progress line. `doctor` on a
 * terminal asks for an `${input:…}` nobody gave, as the other commands do.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, cliPath, ensureBuiltCli, repoRoot, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

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

/** The CLI run with `args`, quoted as one shell command line for `script -c`. */
function shellCommand(args: readonly string[]): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return [process.execPath, cliPath, ...args].map(quote).join(' ');
}

/** Runs the CLI with stdin, stdout and stderr on a pseudo-terminal; returns what it showed. */
function onTerminal(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  const command = shellCommand(args);
  return new Promise((resolve, reject) => {
    execFile(
      'script',
      ['-qec', command, '/dev/null'],
      { env: { ...env, TERM: 'xterm-256color' }, timeout: 30_000 },
      (error, stdout) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        if (error !== null && code === null) reject(new Error(`script failed: ${error.message}`));
        else resolve({ code, output: stdout });
      },
    );
  });
}

/**
 * Runs the CLI on a pseudo-terminal and types `answer` (and Enter) when `prompt` shows; returns
 * what it showed. The answer goes through the terminal, as a person's would.
 */
function answeringOnTerminal(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  prompt: string,
  answer: string,
): Promise<{ code: number | null; output: string; asked: number }> {
  const command = shellCommand(args);
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { ...env, TERM: 'xterm-256color' },
      stdio: ['pipe', 'pipe', 'inherit'],
      timeout: 30_000,
    });
    let output = '';
    let asked = 0;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      if (output.split(prompt).length - 1 > asked) {
        asked++;
        child.stdin.write(`${answer}\r`);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code, output, asked });
    });
  });
}

beforeAll(() => ensureBuiltCli());

describe.skipIf(!hasScript)('on a terminal and piped', () => {
  it('doctor: colours and the progress line on a TTY, none when piped', async () => {
    using dir = tempDir();
    const file = config(dir.path);
    const args = ['doctor', '--config', file, '--timeout', '1s'];
    const tty = await onTerminal(args, cliEnv());
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
    const tty = await onTerminal(args, cliEnv());
    expect(tty.output).toMatch(/connecting \d\/2 servers/);
    expect(tty.output).toContain(ESC);
    const piped = await runCli(args, { cwd: dir.path });
    expect(piped.stderr).not.toContain('connecting');
    expect(piped.stdout + piped.stderr).not.toContain('\x1b');
  });

  it('--no-color and NO_COLOR turn colours off on a TTY', async () => {
    using dir = tempDir();
    const file = config(dir.path);
    const flag = await onTerminal(['doctor', 'missing', '--config', file, '--no-color'], cliEnv());
    expect(flag.output).toContain('command-not-found');
    expect(flag.output).not.toContain(`${ESC}31m`);
    const env = await onTerminal(
      ['doctor', 'missing', '--config', file],
      cliEnv({ NO_COLOR: '1' }),
    );
    expect(env.output).not.toContain(`${ESC}31m`);
  });

  it('config validate colours its severities on a TTY only', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(file, 'servers:\n  a:\n    command: x\n    timeouts: { connectMs: -1 }\n');
    const tty = await onTerminal(['config', 'validate', file], cliEnv());
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
      const run = await answeringOnTerminal(
        ['doctor', '--config', file, '--timeout', '10s', ...mode],
        cliEnv(),
        "Echo token (server 'one'): ",
        secret,
      );
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
