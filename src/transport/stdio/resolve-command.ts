import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/**
 * Where `command` would be found, for error messages: the absolute path of an executable on PATH,
 * or undefined. Mirrors how spawn searches (a command with a slash is taken as a path).
 */
export function resolveCommand(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string = process.cwd(),
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const found = findCommand(command, env, cwd, platform);
  return found?.executable === true ? found.path : undefined;
}

/**
 * The file spawn would try for `command`: the first executable candidate, else the first file
 * that exists but is not executable (what a permission error is about), else undefined.
 */
export function findCommand(
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
