/**
 * Why a server's command cannot be started, in the words every surface uses: the stdio transport
 * when a spawn fails (`servers status`, `watch`), and `mcp-host doctor` before it spawns anything.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

export interface CommandProblem {
  /** `no-cwd`: the working directory is missing; `not-found`, `directory`, `not-executable`. */
  readonly reason: 'no-cwd' | 'not-found' | 'directory' | 'not-executable';
  /** One sentence naming the file or directory (`permission denied running '/x/run.sh'`). */
  readonly message: string;
  /** The file spawn would try, when there is one. */
  readonly path?: string;
}

/**
 * Why `command` (a bare name searched on `env`'s PATH, or a path, relative ones against `cwd`)
 * cannot be started in `cwd`, or undefined when it looks runnable: the working directory is
 * missing, no such file, a directory, or a file without execute permission. A missing `#!`
 * interpreter shows only when it is run (see `spawnProblem`).
 */
export function commandProblem(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd?: string,
): CommandProblem | undefined {
  if (cwd !== undefined && !isDirectory(cwd))
    return { reason: 'no-cwd', message: `working directory '${cwd}' does not exist` };
  const found = commandFile(command, env, cwd);
  if (found === undefined)
    return {
      reason: 'not-found',
      message: `command '${command}' not found${isPath(command) ? '' : ' on PATH'}`,
    };
  if (found.kind === 'directory')
    return { reason: 'directory', message: `'${found.path}' is a directory`, path: found.path };
  if (found.kind === 'file')
    return {
      reason: 'not-executable',
      message: `permission denied running '${found.path}'`,
      path: found.path,
    };
  return undefined;
}

/**
 * Why a spawn of `command` failed with `errno`, as one sentence: `commandProblem`'s when it sees
 * one; a file that is there and executable but failed with ENOENT names its `#!` interpreter.
 */
export function spawnProblem(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string | undefined,
  errno: string,
): string {
  if (errno !== 'ENOENT' && errno !== 'EACCES') return `could not start '${command}' (${errno})`;
  const problem = commandProblem(command, env, cwd);
  if (problem !== undefined) return problem.message;
  const found = commandFile(command, env, cwd);
  return errno === 'ENOENT'
    ? // The file is there: exec failed on the interpreter its #! line names.
      `'${found?.path ?? command}' exists but could not be run: its interpreter (#! line) was not found`
    : `permission denied running '${found?.path ?? command}'`;
}

/** The file spawn would try for `command`, for error details (undefined when there is none). */
export function commandPath(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd?: string,
): string | undefined {
  return commandFile(command, env, cwd)?.path;
}

function isPath(command: string, platform: NodeJS.Platform = process.platform): boolean {
  return command.includes('/') || (platform === 'win32' && command.includes('\\'));
}

/**
 * The file spawn would try for `command` (searching PATH like spawn does; a command with a slash
 * is taken as a path): the first executable candidate, else the first file that exists but is not
 * executable (what a permission error is about), else a directory given as the path, else
 * undefined.
 */
function commandFile(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string = process.cwd(),
  platform: NodeJS.Platform = process.platform,
): { path: string; kind: 'executable' | 'file' | 'directory' } | undefined {
  if (isPath(command, platform)) {
    const path = isAbsolute(command) ? command : resolve(cwd, command);
    if (isDirectory(path)) return { path, kind: 'directory' };
    if (!isFile(path)) return undefined;
    return { path, kind: isExecutable(path) ? 'executable' : 'file' };
  }
  const pathValue = env.PATH ?? env.Path ?? '';
  const extensions =
    platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  let notExecutable: string | undefined;
  for (const dir of pathValue.split(delimiter)) {
    if (dir === '') continue;
    for (const extension of extensions) {
      const candidate = join(dir, command + extension);
      if (!isFile(candidate)) continue;
      if (isExecutable(candidate)) return { path: candidate, kind: 'executable' };
      notExecutable ??= candidate;
    }
  }
  return notExecutable === undefined ? undefined : { path: notExecutable, kind: 'file' };
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
