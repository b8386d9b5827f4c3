import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { McpHostError } from '../../errors/mcp-host-error.js';

export interface SpawnServerOptions {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string | undefined;
  serverName: string | undefined;
  /**
   * Called with the pid as soon as the process exists, synchronously within `spawn()`'s turn:
   * nothing of the host runs in between, so its process group can be put in safe keeping before
   * the server has done anything.
   */
  onSpawned?: (pid: number) => void;
}

/**
 * Starts a server process: no shell, the given environment, its own process group (POSIX), all
 * three pipes. Resolves once the process runs; a failure to start (missing command, missing
 * interpreter, permission, missing working directory) rejects with `SPAWN_FAILED`, naming the file
 * spawn tried, at once and for good.
 */
export async function spawnServer(
  options: SpawnServerOptions,
): Promise<ChildProcessWithoutNullStreams> {
  const { command, args, env, cwd } = options;
  // A missing working directory fails the spawn with ENOENT, and `spawnProblem` names it.
  const child = spawn(command, [...args], {
    cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
    windowsHide: true,
    shell: false,
  });
  if (child.pid !== undefined) options.onSpawned?.(child.pid);
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
  } catch (error) {
    const errno = (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
    throw await spawnFailed(options, errno);
  }
  return child;
}

/** The failure to report; what explains it (command-problem.ts) loads only for a failure. */
async function spawnFailed(options: SpawnServerOptions, errno: string): Promise<McpHostError> {
  const { command, env, cwd, serverName } = options;
  const problems = await import('./command-problem.js');
  const reason = problems.spawnProblem(command, env, cwd, errno);
  // What spawn found, executable or not: a permission error names the file it is about.
  const resolved = problems.commandPath(command, env, cwd);
  return new McpHostError('SPAWN_FAILED', `cannot start the server: ${reason}`, {
    serverName,
    details: { command, resolvedCommand: resolved ?? null, errno, cwd: cwd ?? process.cwd() },
  });
}
