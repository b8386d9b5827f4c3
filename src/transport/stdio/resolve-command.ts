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
  if (command.includes('/') || (platform === 'win32' && command.includes('\\'))) {
    const path = isAbsolute(command) ? command : resolve(cwd, command);
    return isExecutable(path) ? path : undefined;
  }
  const pathValue = env.PATH ?? env.Path ?? '';
  const extensions = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  for (const dir of pathValue.split(delimiter)) {
    if (dir === '') continue;
    for (const extension of extensions) {
      const candidate = join(dir, command + extension);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
