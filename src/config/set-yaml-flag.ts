/**
 * Sets one boolean in a YAML config file's text (`servers.<name>.enabled`) by a targeted edit:
 * the value's own characters are replaced, or one `key: value` line is added to the mapping,
 * and every other byte of the file (flow sequences, spacing, comments) stays as written. A
 * round trip through `yaml`'s Document would reformat the whole file (`[x]` becomes `[ x ]`,
 * inline comments move). Only a mapping the edit cannot place a line in (an empty one, a
 * missing one) falls back to that round trip.
 */
import { yamlModule } from './parser-modules.js';

export function setYamlFlag(
  text: string,
  path: readonly (string | number)[],
  value: boolean,
): string {
  const yaml = yamlModule();
  const document = yaml.parseDocument(text);
  const edited = targetedEdit(text, document, path, value);
  if (edited !== undefined) {
    // Kept only if it reads back as meant; anything else takes the round trip below.
    const check = yaml.parseDocument(edited);
    if (check.errors.length === 0 && check.getIn(path) === value) return edited;
  }
  document.setIn(path, value);
  return document.toString();
}

function targetedEdit(
  text: string,
  document: ReturnType<ReturnType<typeof yamlModule>['parseDocument']>,
  path: readonly (string | number)[],
  value: boolean,
): string | undefined {
  const { isMap, isScalar } = yamlModule();
  const key = path.at(-1);
  const parent: unknown = document.getIn(path.slice(0, -1), true);
  if (key === undefined || document.errors.length > 0 || !isMap(parent)) return undefined;
  const rendered = String(value);
  const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === key);
  if (pair !== undefined) {
    // Replace the value's characters only (a comment after it stays where it is).
    if (!isScalar(pair.value) || pair.value.range == null) return undefined;
    const [start, end] = pair.value.range;
    if (end <= start) return undefined;
    return text.slice(0, start) + rendered + text.slice(end);
  }
  const first = parent.items[0];
  const at = isScalar(first?.key) ? first.key.range?.[0] : undefined;
  if (at === undefined) return undefined;
  // A flow mapping ({ command: x }) gets `key: value, ` before its first entry.
  if (parent.flow === true) return `${text.slice(0, at)}${key}: ${rendered}, ${text.slice(at)}`;
  // A block mapping gets a line of its own, indented as its first key, above that key.
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const indent = text.slice(lineStart, at);
  if (!/^ *$/.test(indent)) return undefined;
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  return `${text.slice(0, lineStart)}${indent}${key}: ${rendered}${newline}${text.slice(lineStart)}`;
}
