/**
 * Loading one skill (SEP-2640 "Integrity and Verification"): the entry's limits are checked before
 * anything is read; then `SKILL.md` is read, its size, digest and frontmatter verified, and only
 * then the supporting files, each verified against its manifest entry as it arrives. Content that
 * fails a check is never returned, and nothing after it is read.
 */
import { sha256Hex } from '../../state/sha256.js';
import { McpHostError } from '../../errors/mcp-host-error.js';
import type { ReadResourceResult, ResourceContents } from '../../protocol/types.js';
import type { CallOptions } from '../client-options.js';
import type { SkillEntry, SkillResource } from './skill-entry.js';
import { frontmatterDifferences, parseSkillFrontmatter } from './skill-frontmatter.js';

/**
 * The extension's per-skill limits, which every conforming host must accept: 512 files and
 * 16 MiB (16,777,216 bytes) summed over the manifest's sizes.
 */
export const DEFAULT_SKILL_LIMITS = Object.freeze({
  maxSkillBytes: 16 * 1024 * 1024,
  maxSkillFiles: 512,
});

/** How a skill is loaded. */
export interface LoadSkillOptions extends Pick<CallOptions, 'signal' | 'timeoutMs'> {
  /**
   * Most bytes one skill may have, summed over its manifest (checked before any read) or, for a
   * `'dynamic'` skill, over what was read (default 16 MiB, the extension's limit).
   */
  maxSkillBytes?: number;
  /** Most files one skill may list, `SKILL.md` included (default 512, the extension's limit). */
  maxSkillFiles?: number;
  /**
   * `'all'` (default) reads every file of the manifest; `'skill-md'` reads only `SKILL.md`, for a
   * host that reads supporting files when the model asks for them (`readSkillFile`).
   */
  files?: 'all' | 'skill-md';
  /**
   * Load a skill whose entry says `resources: 'dynamic'` (no digests: only its frontmatter and the
   * size limit can be checked, and only `SKILL.md` is read). Default false: refused.
   */
  allowDynamic?: boolean;
}

/** One verified file of a skill, as the server sent it: UTF-8 `text` or base64 `blob`. */
export type SkillFile =
  | { readonly uri: string; readonly mimeType?: string; readonly text: string }
  | { readonly uri: string; readonly mimeType?: string; readonly blob: string };

/** A skill whose files were read and verified against its entry. */
export interface LoadedSkill {
  /** The entry the files were verified against (hold it while acting on the skill). */
  readonly entry: SkillEntry;
  /** The files read, in manifest order, `SKILL.md` first. */
  readonly files: readonly SkillFile[];
  /** `SKILL.md`'s text, frontmatter included. */
  readonly skillMd: string;
}

/** What loading needs of a client: reading one resource. */
export type ReadResource = (uri: string, options: CallOptions) => Promise<ReadResourceResult>;

/** What a skill failure says about where it happened. */
interface Where {
  serverName: string | undefined;
  entry: SkillEntry;
}

/** Loads and verifies a skill from its entry (see the module comment). */
export async function loadSkill(
  read: ReadResource,
  entry: SkillEntry,
  where: { serverName: string | undefined },
  options: LoadSkillOptions = {},
): Promise<LoadedSkill> {
  const at: Where = { serverName: where.serverName, entry };
  const maxBytes = options.maxSkillBytes ?? DEFAULT_SKILL_LIMITS.maxSkillBytes;
  const maxFiles = options.maxSkillFiles ?? DEFAULT_SKILL_LIMITS.maxSkillFiles;
  const call: CallOptions = { signal: options.signal, timeoutMs: options.timeoutMs };
  if (entry.resources === 'dynamic') {
    if (options.allowDynamic !== true)
      throw failure(
        at,
        entry.uri,
        'dynamic',
        `its entry publishes no digests (resources: 'dynamic')`,
      );
    const file = await readFile(read, entry.uri, at, call);
    const bytes = bytesOf(file, at);
    if (bytes.length > maxBytes)
      throw tooLarge(at, `SKILL.md alone is ${bytes.length} bytes, over the limit of ${maxBytes}`, {
        bytes: bytes.length,
        limit: maxBytes,
      });
    const skillMd = await checkedSkillMd(file, bytes, at);
    return Object.freeze({ entry, files: Object.freeze([file]), skillMd });
  }
  const manifest = entry.resources;
  const total = manifest.reduce((sum, resource) => sum + resource.size, 0);
  if (manifest.length > maxFiles)
    throw tooLarge(at, `it lists ${manifest.length} files, over the limit of ${maxFiles}`, {
      files: manifest.length,
      limit: maxFiles,
    });
  if (total > maxBytes)
    throw tooLarge(at, `its files total ${total} bytes, over the limit of ${maxBytes}`, {
      bytes: total,
      limit: maxBytes,
    });
  const skillMdResource = manifest.find((resource) => resource.uri === entry.uri)!;
  const first = await verifiedFile(read, skillMdResource, at, call);
  const skillMd = await checkedSkillMd(first.file, first.bytes, at);
  const files: SkillFile[] = [first.file];
  if (options.files !== 'skill-md') {
    for (const resource of manifest) {
      if (resource.uri === entry.uri) continue;
      files.push((await verifiedFile(read, resource, at, call)).file);
    }
  }
  return Object.freeze({ entry, files: Object.freeze(files), skillMd });
}

/**
 * Reads one file the entry lists and verifies it: for a host acting on a loaded skill that reads
 * its supporting files one by one. A URI the manifest does not list is a verification failure.
 */
export async function readSkillFile(
  read: ReadResource,
  entry: SkillEntry,
  uri: string,
  where: { serverName: string | undefined },
  options: Pick<CallOptions, 'signal' | 'timeoutMs'> = {},
): Promise<SkillFile> {
  const at: Where = { serverName: where.serverName, entry };
  const resource =
    entry.resources === 'dynamic'
      ? undefined
      : entry.resources.find((candidate) => candidate.uri === uri);
  if (resource === undefined)
    throw failure(at, uri, 'unlisted', `the file is not listed in the skill's entry`);
  const call: CallOptions = { signal: options.signal, timeoutMs: options.timeoutMs };
  return (await verifiedFile(read, resource, at, call)).file;
}

/** Reads a listed file and checks its size, then its digest. */
async function verifiedFile(
  read: ReadResource,
  resource: SkillResource,
  at: Where,
  call: CallOptions,
): Promise<{ file: SkillFile; bytes: Uint8Array }> {
  const file = await readFile(read, resource.uri, at, call);
  const bytes = bytesOf(file, at);
  // A size mismatch fails at once, before any hashing (the spec calls it a digest mismatch).
  if (bytes.length !== resource.size)
    throw failure(
      at,
      resource.uri,
      'size',
      `${bytes.length} bytes were read, the entry says ${resource.size}`,
      { expected: resource.size, actual: bytes.length },
    );
  const digest = `sha256:${await sha256Hex(bytes)}`;
  if (digest !== resource.digest)
    throw failure(at, resource.uri, 'digest', `its SHA-256 digest is not the entry's`, {
      expected: resource.digest,
      actual: digest,
    });
  return { file, bytes };
}

/** `SKILL.md` as text, with frontmatter identical to the entry's. */
async function checkedSkillMd(file: SkillFile, bytes: Uint8Array, at: Where): Promise<string> {
  let text: string;
  try {
    text = 'text' in file ? file.text : new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw failure(at, file.uri, 'content', 'SKILL.md is not UTF-8 text');
  }
  const parsed = await parseSkillFrontmatter(text);
  if ('invalid' in parsed) throw failure(at, file.uri, 'frontmatter', parsed.invalid);
  const differ = frontmatterDifferences(parsed.frontmatter, at.entry.frontmatter);
  if (differ.length > 0)
    throw failure(
      at,
      file.uri,
      'frontmatter',
      `SKILL.md's frontmatter differs from the entry's in ${differ
        .slice(0, 10)
        .map((key) => `'${key.slice(0, 64)}'`)
        .join(', ')}`,
      { fields: differ.slice(0, 50) },
    );
  return text;
}

/** One resource's content for `uri`: the one the server says is `uri`, or its only one. */
async function readFile(
  read: ReadResource,
  uri: string,
  at: Where,
  call: CallOptions,
): Promise<SkillFile> {
  const result = await read(uri, call);
  const contents: unknown = (result as { contents?: unknown }).contents;
  const list = Array.isArray(contents) ? (contents as ResourceContents[]) : [];
  const content =
    list.find((item) => typeof item === 'object' && item !== null && item.uri === uri) ??
    (list.length === 1 ? list[0] : undefined);
  const mimeType = typeof content?.mimeType === 'string' ? { mimeType: content.mimeType } : {};
  if (typeof content?.text === 'string') return { uri, ...mimeType, text: content.text };
  if (typeof content?.blob === 'string') return { uri, ...mimeType, blob: content.blob };
  throw failure(at, uri, 'content', 'resources/read returned no text or blob for it');
}

/** The raw bytes a file stands for: the UTF-8 of `text`, or `blob` base64-decoded. */
function bytesOf(file: SkillFile, at: Where): Uint8Array {
  if ('text' in file) return new TextEncoder().encode(file.text);
  const bytes = decodeBase64(file.blob);
  if (bytes === undefined) throw failure(at, file.uri, 'content', 'its blob is not valid base64');
  return bytes;
}

function decodeBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** A verification failure: the server, the skill, the file and what did not match. */
function failure(
  at: Where,
  file: string,
  check: 'size' | 'digest' | 'frontmatter' | 'content' | 'unlisted' | 'dynamic',
  what: string,
  details: Record<string, unknown> = {},
): McpHostError {
  const where = file === at.entry.uri ? '' : ` file '${file}'`;
  return new McpHostError(
    'SKILL_VERIFICATION_FAILED',
    `skill '${at.entry.uri}'${where} failed verification (${check}): ${what}; it was not loaded`,
    { serverName: at.serverName, details: { skill: at.entry.uri, file, check, ...details } },
  );
}

function tooLarge(at: Where, what: string, details: Record<string, unknown>): McpHostError {
  return new McpHostError('SKILL_TOO_LARGE', `skill '${at.entry.uri}' was not loaded: ${what}`, {
    serverName: at.serverName,
    details: { skill: at.entry.uri, ...details },
  });
}
