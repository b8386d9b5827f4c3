import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
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
  if (cwd !== undefined && !isDirectory(cwd)) {
    throw spawnFailed(options, `working directory '${cwd}' does not exist`, 'ENOENT');
  }
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
    const found = commandFile(command, env, cwd);
    const reason =
      errno === 'ENOENT'
        ? found?.executable === true
          ? // The file is there: exec failed on the interpreter its #! line names.
            `'${found.path}' exists but could not be run: its interpreter (#! line) was not found`
          : `command '${command}' not found${command.includes('/') ? '' : ' on PATH'}`
        : errno === 'EACCES'
          ? `permission denied running '${found?.path ?? command}'`
          : `could not start '${command}' (${errno})`;
    throw spawnFailed(options, reason, errno);
  }
  return child;
}

function spawnFailed(options: SpawnServerOptions, reason: string, errno: string): McpHostError {
  const { command, env, cwd, serverName } = options;
  // What spawn found, executable or not: a permission error names the file it is about.
  const resolved = commandFile(command, env, cwd)?.path;
  return new McpHostError('SPAWN_FAILED', `cannot start the server: ${reason}`, {
    serverName,
    details: { command, resolvedCommand: resolved ?? null, errno, cwd: cwd ?? process.cwd() },
  });
}

/**
 * The file spawn would try for `command` (searching PATH like spawn does; a command with a slash
 * is taken as a path): the first executable candidate, else the first file that exists but is not
 * executable (what a permission error is about), else undefined. For error messages.
 */
function commandFile(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string = process.cwd(),
  platform: NodeJS.Platform = process.platform,
): { path: string; executable: boolean } | undefined {
  const candidates: string[] = [];
  if (command.includes('/') || (platform === 'win32' && command.includes('\\'))) {
    candidates.push(isAbsolute(command) ? command : resolve(cwd, command));
  } else {
    const pathValue = env.PATH ?? env.Path ?? '';
    const extensions =
      platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
    for (const dir of pathValue.split(delimiter)) {
      if (dir === '') continue;
      for (const extension of extensions) candidates.push(join(dir, command + extension));
    }
  }
  let notExecutable: string | undefined;
  for (const candidate of candidates) {
    if (!isFile(candidate)) continue;
    if (isExecutable(candidate)) return { path: candidate, executable: true };
    notExecutable ??= candidate;
  }
  return notExecutable === undefined ? undefined : { path: notExecutable, executable: false };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
