/** Whether a stdio server's command can run, checked before anything is spawned. */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, resolve as resolvePath } from 'node:path';
import type { ServerConfig } from '../../config/model.js';

/** Whether `command` runs: a path is checked as it is, a bare name is searched on `PATH`. */
export async function findCommand(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
  server?: ServerConfig,
): Promise<boolean> {
  const expanded = command.startsWith('~') ? command.replace(/^~/, env.HOME ?? '~') : command;
  if (expanded.includes('/') || expanded.includes('\\')) {
    const base =
      server?.transport.type === 'stdio' && server.transport.cwd !== undefined
        ? server.transport.cwd
        : process.cwd();
    return isExecutable(isAbsolute(expanded) ? expanded : resolvePath(base, expanded));
  }
  const extensions =
    process.platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    for (const ext of extensions)
      if (await isExecutable(resolvePath(dir, expanded + ext))) return true;
  }
  return false;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    if (!(await stat(file)).isFile()) return false;
    await access(file, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
