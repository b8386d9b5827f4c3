/**
 * Runs the built `mcp-host` binary (dist/cli.js, made by `npm run build`, which `npm test` runs
 * first) as a subprocess and collects its output; builds it once if it is missing.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const cliPath = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export function ensureBuiltCli(): void {
  if (!existsSync(cliPath))
    execFileSync('npm', ['run', 'build'], { cwd: repoRoot, stdio: 'ignore' });
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a CLI test runs with: no colour switches, no MCP_HOST_* from the caller. */
export function cliEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith('MCP_HOST_') && key !== 'NO_COLOR' && key !== 'FORCE_COLOR')
      env[key] = value;
  for (const [key, value] of Object.entries(extra))
    if (value === undefined) delete env[key];
    else env[key] = value;
  return env;
}

export function runCli(
  args: readonly string[],
  options: {
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    input?: string;
    timeoutMs?: number;
    /** The signal that ends a run past `timeoutMs` (default SIGTERM, which the CLI handles). */
    killSignal?: NodeJS.Signals;
  } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [cliPath, ...args],
      {
        cwd: options.cwd ?? repoRoot,
        env: options.env ?? cliEnv(),
        timeout: options.timeoutMs ?? 30_000,
        killSignal: options.killSignal ?? 'SIGTERM',
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        if (error !== null && code === null)
          reject(new Error(`mcp-host did not exit: ${error.message}`));
        else resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}

/** A 127.0.0.1 port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
