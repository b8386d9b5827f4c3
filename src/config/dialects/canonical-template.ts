/**
 * The canonical template grammar of src/config/model.ts as parts, and back. Dialect grammars
 * translate to and from these parts, never string to string, so no translation can turn literal
 * text into a template by accident: literal `${` is always printed as `$${`.
 *
 * Parsing is expand/template.ts's (the expansion engine's parser); its rules, which the translators rely on:
 * - `$${` is a literal `${` (leftmost wins); no other escape (`$VAR`, `$$`, `}` are text).
 * - `${NAME}`, `${NAME:-default}`, `${NAME-default}` with NAME `[A-Za-z_][A-Za-z0-9_]*`.
 * - `${input:ID}` with ID `[A-Za-z0-9_.-]+`.
 * - A default is literal text up to the first `}`: it cannot hold `}` nor `${` (no nesting, no
 *   escapes inside it).
 * - A literal `$` directly before a reference cannot be written (`$${X}` is the escape): printing
 *   such parts fails rather than change their meaning.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import { parseTemplate, type TemplatePart } from '../expand/template.js';

export type TemplateResult<T> = { ok: true; value: T } | { ok: false; message: string };

export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const INPUT_ID = /^[A-Za-z0-9_.-]+$/;

/** Adjacent text parts merged, empty ones dropped. */
export function normaliseParts(parts: readonly TemplatePart[]): TemplatePart[] {
  const out: TemplatePart[] = [];
  for (const part of parts) {
    if (part.kind === 'text') {
      if (part.text === '') continue;
      const last = out.at(-1);
      if (last?.kind === 'text')
        out[out.length - 1] = { kind: 'text', text: last.text + part.text };
      else out.push({ kind: 'text', text: part.text });
    } else out.push(part);
  }
  return out;
}

export function partsEqual(a: readonly TemplatePart[], b: readonly TemplatePart[]): boolean {
  const x = normaliseParts(a);
  const y = normaliseParts(b);
  return x.length === y.length && x.every((part, i) => samePart(part, y[i]!));
}

function samePart(a: TemplatePart, b: TemplatePart): boolean {
  switch (a.kind) {
    case 'text':
      return b.kind === 'text' && a.text === b.text;
    case 'input':
      return b.kind === 'input' && a.id === b.id;
    case 'variable':
      return (
        b.kind === 'variable' &&
        a.name === b.name &&
        a.fallback?.text === b.fallback?.text &&
        a.fallback?.ifEmpty === b.fallback?.ifEmpty
      );
  }
}

/** Literal text as a canonical string (`${` escaped). */
export function escapeCanonical(text: string): string {
  // A function, not '$${': in a replacement string `$$` is one `$`.
  return text.replaceAll('${', () => '$${');
}

/** A canonical string as parts. */
export function parseCanonical(source: string): TemplateResult<TemplatePart[]> {
  try {
    return { ok: true, value: parseTemplate(source) };
  } catch (error) {
    if (error instanceof McpHostError) return { ok: false, message: error.message };
    throw error;
  }
}

/** Parts as a canonical string, or why they cannot be one. */
export function printCanonical(parts: readonly TemplatePart[]): TemplateResult<string> {
  let out = '';
  for (const part of normaliseParts(parts)) {
    if (part.kind === 'text') {
      out += escapeCanonical(part.text);
      continue;
    }
    if (out.endsWith('$'))
      return {
        ok: false,
        message:
          'a literal "$" directly before a variable cannot be written in the canonical grammar',
      };
    if (part.kind === 'input') {
      if (!INPUT_ID.test(part.id)) return { ok: false, message: `invalid input id "${part.id}"` };
      out += `\${input:${part.id}}`;
      continue;
    }
    if (!ENV_NAME.test(part.name))
      return { ok: false, message: `invalid variable name "${part.name}"` };
    if (part.fallback === undefined) {
      out += `\${${part.name}}`;
      continue;
    }
    if (part.fallback.text.includes('}') || part.fallback.text.includes('${'))
      return {
        ok: false,
        message: `the default of \${${part.name}} cannot hold "}" or "\${" in the canonical grammar`,
      };
    const op = part.fallback.ifEmpty ? ':-' : '-';
    out += `\${${part.name}${op}${part.fallback.text}}`;
  }
  return { ok: true, value: out };
}

/** True when the canonical string holds no template (only literal text, escapes allowed). */
export function isLiteralCanonical(source: string): boolean {
  const parsed = parseCanonical(source);
  return parsed.ok && parsed.value.every((part) => part.kind === 'text');
}
