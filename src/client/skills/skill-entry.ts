/**
 * The skills extension's entry (`io.modelcontextprotocol/skills`, SEP-2640): what `skills/list`
 * and `skills/get` return for one skill, checked as it arrives. An entry names the skill's
 * `SKILL.md`, carries its frontmatter verbatim and a manifest of every file with its SHA-256 digest
 * and size; nothing is read from the server to build it. Pure: no I/O.
 */
import { isObject } from '../../protocol/guards.js';
import type { CacheHints, Resource } from '../../protocol/types.js';
import { cacheHintsOf } from '../pagination.js';

/** The extension's identifier, the key a server declares under `capabilities.extensions`. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** One file of a skill: its resource URI, the digest (`sha256:<64 hex>`) and size of its bytes. */
export interface SkillResource {
  readonly uri: string;
  readonly digest: string;
  readonly size: number;
}

/** A skill's `SKILL.md` frontmatter as JSON: `name` and `description`, and every other field. */
export interface SkillFrontmatter {
  readonly name: string;
  readonly description: string;
  readonly [key: string]: unknown;
}

/**
 * One skill as a server lists it. `resources` is the complete manifest of its files (`SKILL.md`
 * included), or `'dynamic'` when the server generates the content and publishes no digests.
 */
export interface SkillEntry {
  /** The URI of the skill's `SKILL.md` (its identity, on its server). */
  readonly uri: string;
  readonly frontmatter: SkillFrontmatter;
  readonly resources: readonly SkillResource[] | 'dynamic';
}

const SKILL_MD = '/SKILL.md';
const DIGEST = /^sha256:[0-9a-f]{64}$/;
/** Longest URI accepted in an entry (a bound, not a spec limit). */
const MAX_URI_LENGTH = 2048;
/** Most manifest entries looked at; the extension's own limit (512) is applied when loading. */
const MAX_MANIFEST_ENTRIES = 10_000;

/** The skill's root directory: its `SKILL.md` URI without `/SKILL.md`. */
export function skillRootOf(uri: string): string {
  return uri.endsWith(SKILL_MD) ? uri.slice(0, -SKILL_MD.length) : uri;
}

/** The skill path: the root without its scheme (`skill://acme/refunds/SKILL.md` → `acme/refunds`). */
export function skillPathOf(uri: string): string {
  const root = skillRootOf(uri);
  const scheme = root.indexOf('://');
  return scheme < 0 ? root : root.slice(scheme + 3);
}

/**
 * A checked copy of an entry (only its three fields, frozen), or why it is not one: a `SKILL.md`
 * URI, a frontmatter with a non-empty `name` and `description` whose `name` is the URI's last path
 * segment, and a manifest that is `'dynamic'` or lists `SKILL.md` and files under the skill's
 * root, each once, with a well-formed digest and size.
 */
export function toSkillEntry(value: unknown): SkillEntry | { invalid: string } {
  const invalid = (reason: string) => ({ invalid: reason });
  if (!isObject(value)) return invalid('the entry is not an object');
  const { uri, frontmatter, resources } = value;
  if (typeof uri !== 'string' || uri.length > MAX_URI_LENGTH || !isUri(uri))
    return invalid('its uri is not a URI');
  if (!uri.endsWith(SKILL_MD)) return invalid(`its uri does not end in ${SKILL_MD}`);
  if (!isObject(frontmatter)) return invalid('it has no frontmatter object');
  const { name, description } = frontmatter;
  if (typeof name !== 'string' || name === '') return invalid('its frontmatter has no name');
  if (typeof description !== 'string' || description === '')
    return invalid('its frontmatter has no description');
  const path = skillPathOf(uri).split('/');
  if (path.at(-1) !== name)
    return invalid(`its uri's last path segment is not the frontmatter name '${name}'`);
  const entry = (manifest: readonly SkillResource[] | 'dynamic'): SkillEntry =>
    Object.freeze({
      uri,
      frontmatter: structuredClone(frontmatter) as SkillFrontmatter,
      resources: manifest,
    });
  if (resources === 'dynamic') return entry('dynamic');
  if (!Array.isArray(resources)) return invalid(`its resources are neither an array nor 'dynamic'`);
  if (resources.length > MAX_MANIFEST_ENTRIES)
    return invalid(`its manifest lists more than ${MAX_MANIFEST_ENTRIES} files`);
  const root = `${skillRootOf(uri)}/`;
  const seen = new Set<string>();
  const files: SkillResource[] = [];
  for (const [index, resource] of resources.entries()) {
    if (!isObject(resource)) return invalid(`resources[${index}] is not an object`);
    const { uri: file, digest, size } = resource;
    if (typeof file !== 'string' || file.length > MAX_URI_LENGTH || !file.startsWith(root))
      return invalid(`resources[${index}].uri is not a file of the skill`);
    if (
      file
        .slice(root.length)
        .split('/')
        .some((segment) => segment === '' || segment === '.' || segment === '..')
    )
      return invalid(`resources[${index}].uri has an empty, '.' or '..' path segment`);
    if (typeof digest !== 'string' || !DIGEST.test(digest))
      return invalid(`resources[${index}].digest is not sha256:<64 lowercase hex digits>`);
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
      return invalid(`resources[${index}].size is not a byte count`);
    if (seen.has(file)) return invalid(`resources list ${file} twice`);
    seen.add(file);
    files.push(Object.freeze({ uri: file, digest, size }));
  }
  if (!seen.has(uri)) return invalid(`its resources do not list its ${SKILL_MD.slice(1)}`);
  return entry(Object.freeze(files));
}

/** `scheme:` then something: what `new URL` would need first, without its cost. */
function isUri(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s\u0000-\u001f]+$/.test(text);
}

/** Every skill a server lists (all pages), and the entries left out as invalid, with why. */
export interface SkillListing {
  skills: SkillEntry[];
  excluded: { uri: string; reason: string }[];
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
}

/**
 * One page of a skill directory's direct children (`resources/directory/read`): files, and
 * subdirectories with the `mimeType` `inode/directory`; `nextCursor` asks for the next page.
 */
export interface SkillDirectoryPage extends CacheHints {
  resources: Resource[];
  nextCursor?: string;
}

/** A `resources/directory/read` result as a page (its cache hints kept), or undefined if not one. */
export function toSkillDirectoryPage(result: unknown): SkillDirectoryPage | undefined {
  if (!isObject(result) || !Array.isArray(result.resources)) return undefined;
  const page: SkillDirectoryPage = {
    resources: result.resources.filter(isObject) as unknown as Resource[],
    ...cacheHintsOf(result),
  };
  if (typeof result.nextCursor === 'string' && result.nextCursor !== '')
    page.nextCursor = result.nextCursor;
  return page;
}
