/**
 * Values inside a server entry: strings, lists and maps of strings (as canonical templates), and
 * tool names as globs.
 */
import type { DialectGrammar } from './grammars.js';
import { typeName, type ReadContext } from './read-context.js';
import { isRecord, type KeyPath } from '../parse.js';

/** A tool name as a glob that matches only that name. */
export function globOfName(name: string): string {
  return name.replace(/[*?\\]/g, (c) => `\\${c}`);
}

/** A glob as the one name it matches, or `undefined` when it has wildcards. */
export function nameOfGlob(glob: string): string | undefined {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\' && i + 1 < glob.length) out += glob[++i]!;
    else if (c === '*' || c === '?') return undefined;
    else out += c;
  }
  return out;
}

export function readString(
  value: unknown,
  path: KeyPath,
  name: string,
  ctx: ReadContext,
): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  ctx.report('error', 'invalid-type', `expected a string, found ${typeName(value)}`, path, name);
  return undefined;
}

export function readStringList(
  value: unknown,
  path: KeyPath,
  name: string,
  ctx: ReadContext,
): string[] {
  if (!Array.isArray(value)) {
    ctx.report(
      'error',
      'invalid-type',
      `expected an array of strings, found ${typeName(value)}`,
      path,
      name,
    );
    return [];
  }
  const out: string[] = [];
  value.forEach((item, i) => {
    const text = readString(item, [...path, i], name, ctx);
    if (text !== undefined) out.push(text);
  });
  return out;
}

/** A string map (env, headers) as canonical templates; `null` values are dropped with a warning. */
export function readStringMap(
  value: unknown,
  path: KeyPath,
  name: string,
  grammar: DialectGrammar | undefined,
  ctx: ReadContext,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(value)) {
    ctx.report(
      'error',
      'invalid-type',
      `expected an object of strings, found ${typeName(value)}`,
      path,
      name,
    );
    return out;
  }
  for (const [key, item] of Object.entries(value)) {
    if (item === null) {
      ctx.report('warning', 'ignored-value', `null for "${key}" is left out`, [...path, key], name);
      continue;
    }
    const text = readString(item, [...path, key], name, ctx);
    const template =
      text === undefined ? undefined : ctx.template(text, [...path, key], grammar, name);
    if (template !== undefined) out[key] = template;
  }
  return out;
}
