/**
 * Writes a config file the careful way: a backup of the old file first, then the new text into a
 * temporary file in the same folder (same mode as the old file, `0600` for a new one: configs
 * hold secrets), flushed, and renamed over the old one, so a reader sees the old file or the new
 * one, never half of one. A backup never replaces another: the old file goes to `<file>.bak`
 * when there is none yet, else to the first free `<file>.bak.1`, `<file>.bak.2`, … A symbolic
 * link is followed: the file it points to is replaced (the link stays).
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, open, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface WriteConfigFileOptions {
  /**
   * `true` (default): the old file is copied to `<file>.bak` when there is none yet, else to
   * `<file>.bak.1`, `<file>.bak.2`, … (the first free number: a backup is never replaced);
   * `false`: no backup.
   */
  backup?: boolean;
  /** The mode of a new file (default `0o600`); an existing file keeps its mode. */
  mode?: number;
}

export interface WriteConfigFileResult {
  /** The file written (the target of a link). */
  file: string;
  /** Where the old file was copied, when there was one. */
  backupFile?: string;
}

async function existingTarget(file: string): Promise<string | undefined> {
  try {
    return await realpath(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Most numbered backups looked for before giving up (a folder full of them is a mistake). */
const MAX_NUMBERED_BACKUPS = 10_000;

/** Copies `file` to `<file>.bak`, else the first free `<file>.bak.<n>`; never replaces one. */
async function copyToFreeName(file: string): Promise<string> {
  for (let n = 0; n < MAX_NUMBERED_BACKUPS; n++) {
    const name = n === 0 ? `${file}.bak` : `${file}.bak.${n}`;
    try {
      await copyFile(file, name, constants.COPYFILE_EXCL);
      return name;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error(`${file}: ${MAX_NUMBERED_BACKUPS} backups exist already; remove old ones`);
}

export async function writeConfigFile(
  file: string,
  text: string,
  options: WriteConfigFileOptions = {},
): Promise<WriteConfigFileResult> {
  const { backup = true, mode: newMode = 0o600 } = options;
  const existing = await existingTarget(file);
  const target = existing ?? file;
  let mode = newMode;
  let backupFile: string | undefined;
  if (existing !== undefined) {
    mode = (await stat(existing)).mode & 0o7777;
    if (backup) backupFile = await copyToFreeName(existing);
  }
  const temp = join(
    dirname(target),
    `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  const handle = await open(temp, 'wx', mode);
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.chmod(mode); // open()'s mode is masked by the umask
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  return { file: target, ...(backupFile === undefined ? {} : { backupFile }) };
}
