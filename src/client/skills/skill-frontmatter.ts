/**
 * A `SKILL.md`'s YAML frontmatter, parsed and compared field by field with the frontmatter its
 * entry carries (SEP-2640: any discrepancy means the skill is not loaded). The `yaml` package is
 * loaded on first use, so importing the client costs nothing for it.
 */
import { isObject } from '../../protocol/guards.js';
import type { JsonObject } from '../../jsonrpc/message.js';
import type { SkillFrontmatter } from './skill-entry.js';

/** What this module needs of the `yaml` package (typed here, so no static import names it). */
interface YamlModule {
  parse(source: string, options: Record<string, unknown>): unknown;
}

let yamlModule: Promise<YamlModule> | undefined;

function loadYaml(): Promise<YamlModule> {
  yamlModule ??= import('yaml') as Promise<unknown> as Promise<YamlModule>;
  return yamlModule;
}

/** The frontmatter block's delimiter line. */
const DELIMITER = '---';

/**
 * The frontmatter of a `SKILL.md` as JSON, or why there is none: the text must begin with a `---`
 * line (after an optional byte order mark), and the YAML up to the next `---` line must be a
 * mapping. Duplicate keys and more than 100 aliases are refused (no alias bombs).
 */
export async function parseSkillFrontmatter(
  text: string,
): Promise<{ frontmatter: JsonObject } | { invalid: string }> {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = source.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines[0] !== DELIMITER)
    return { invalid: 'SKILL.md does not begin with a --- frontmatter block' };
  const end = lines.findIndex((line, index) => index > 0 && line === DELIMITER);
  if (end < 0) return { invalid: 'the frontmatter block of SKILL.md is not closed by a --- line' };
  let value: unknown;
  try {
    const yaml = await loadYaml();
    value = yaml.parse(lines.slice(1, end).join('\n'), {
      uniqueKeys: true,
      maxAliasCount: 100,
      prettyErrors: false,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0]!.slice(0, 200) : 'unknown';
    return { invalid: `the frontmatter of SKILL.md is not valid YAML (${reason})` };
  }
  if (!isObject(value)) return { invalid: 'the frontmatter of SKILL.md is not a YAML mapping' };
  return { frontmatter: value };
}

/**
 * The top-level fields on which the file's frontmatter and the entry's differ (empty when they
 * agree). Values are compared as JSON, deeply; a field absent on one side equals `null` on the
 * other, as the two renderings of an empty YAML value.
 */
export function frontmatterDifferences(
  fromFile: JsonObject,
  fromEntry: SkillFrontmatter,
): string[] {
  const differ: string[] = [];
  for (const key of new Set([...Object.keys(fromFile), ...Object.keys(fromEntry)])) {
    if (!sameJson(fromFile[key] ?? null, fromEntry[key] ?? null)) differ.push(key);
  }
  return differ;
}

function sameJson(a: unknown, b: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => sameJson(item, b[index], depth + 1));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key], depth + 1));
}
