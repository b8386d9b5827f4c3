/**
 * The built CLI on a pseudo-terminal (`script` from util-linux), as a person runs it: stdin,
 * stdout and stderr are a terminal, so it colours its output, shows progress and asks its
 * questions there. Tests that need one skip when `script` is missing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cliEnv, cliPath } from './run-built-cli.js';

/** Whether `script` is installed. */
export const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** What the terminal showed, the exit code, and how many times the answer was typed. */
export interface TerminalRun {
  code: number | null;
  output: string;
  asked: number;
}

/**
 * Runs the built CLI with `args` on a pseudo-terminal (`TERM=xterm-256color`, bounded at 30 s);
 * with `answer`, types its text and Enter each time its prompt shows, as a person would.
 */
export function onTerminal(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; answer?: { prompt: string; text: string } } = {},
): Promise<TerminalRun> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, cliPath, ...args].map(quote).join(' ');
  const { answer } = options;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { ...(options.env ?? cliEnv()), TERM: 'xterm-256color' },
      stdio: ['pipe', 'pipe', 'inherit'],
      timeout: 30_000,
    });
    let output = '';
    let asked = 0;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      if (answer !== undefined && output.split(answer.prompt).length - 1 > asked) {
        asked++;
        child.stdin.write(`${answer.text}\r`);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code, output, asked });
    });
  });
}
