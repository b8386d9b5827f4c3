/**
 * The canonical template grammar of the config model (see model.ts), parsed into parts:
 *
 * - `${VAR}`          the environment variable VAR; VAR is `[A-Za-z_][A-Za-z0-9_]*`
 * - `${VAR:-default}` VAR, or `default` when VAR is unset or empty
 * - `${VAR-default}`  VAR, or `default` only when VAR is unset
 * - `${input:id}`     the input `id` (`[A-Za-z0-9_.-]+`)
 * - `$${`             a literal `${` (the leftmost `$${` wins: `$$${X}` is `$` + `${X}` literal)
 *
 * Everything else is literal text: `$VAR`, `$$`, a lone `$`, `}`. A default is literal text up to
 * the first `}`: it cannot hold `}` and is never expanded itself, so a nested reference such as
 * `${A:-${B}}` is refused with a syntax error rather than half-understood (no recursion, and no
 * dialect we read expands it either). An unterminated `${`, an empty `${}` and a name that is not
 * a variable name (such as VS Code's `${env:X}`, which dialect readers translate) are errors too:
 * `CONFIG_INVALID`, whose message never holds more than the reference.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';

export type TemplatePart =
  | { kind: 'text'; text: string }
  | {
      kind: 'variable';
      name: string;
      /** `ifEmpty: true` for `:-` (unset or empty), false for `-` (unset only). */
      fallback?: { text: string; ifEmpty: boolean };
    }
  | { kind: 'input'; id: string };

/** A string that does not follow the grammar: CONFIG_INVALID saying why. */
function syntaxError(reason: string): McpHostError {
  return new McpHostError('CONFIG_INVALID', reason);
}

const VARIABLE = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:-|-)([^]*))?$/;
const INPUT_ID = /^[A-Za-z0-9_.-]+$/;

/**
 * Parses a template into text, variable and input parts; a string that does not follow the
 * grammar throws CONFIG_INVALID (an `McpHostError`).
 */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = '';
  let i = 0;
  while (i < template.length) {
    if (template.startsWith('$${', i)) {
      text += '${';
      i += 3;
      continue;
    }
    if (!template.startsWith('${', i)) {
      text += template[i];
      i++;
      continue;
    }
    const close = template.indexOf('}', i + 2);
    if (close < 0) throw syntaxError('unterminated `${` (write `$${` for a literal)');
    const body = template.slice(i + 2, close);
    if (text !== '') parts.push({ kind: 'text', text });
    text = '';
    parts.push(parseReference(body));
    i = close + 1;
  }
  if (text !== '') parts.push({ kind: 'text', text });
  return parts;
}

function parseReference(body: string): TemplatePart {
  if (body.includes('${'))
    throw syntaxError(
      'nested references such as `${A:-${B}}` are not supported (a default is literal text)',
    );
  if (body === '') throw syntaxError('empty reference `${}`');
  if (body.startsWith('input:')) {
    const id = body.slice('input:'.length);
    if (!INPUT_ID.test(id)) throw syntaxError(`invalid input id in \`\${${body}}\``);
    return { kind: 'input', id };
  }
  const match = VARIABLE.exec(body);
  if (match === null) {
    const hint = /^env:[A-Za-z_][A-Za-z0-9_]*$/.test(body)
      ? ` (the canonical form is \`\${${body.slice(4)}}\`)`
      : '';
    throw syntaxError(
      `invalid reference \`\${${shorten(body)}}\`: expected \${NAME}, \${NAME:-default}, \${NAME-default} or \${input:id}${hint}`,
    );
  }
  const [, name = '', operator, fallback] = match;
  if (operator === undefined) return { kind: 'variable', name };
  return {
    kind: 'variable',
    name,
    fallback: { text: fallback ?? '', ifEmpty: operator === ':-' },
  };
}

function shorten(text: string): string {
  return text.length <= 40 ? text : `${text.slice(0, 39)}…`;
}

/** True when the string holds a reference (after escapes): something expansion would change. */
export function hasReferences(parts: readonly TemplatePart[]): boolean {
  return parts.some((part) => part.kind !== 'text');
}

/** Writes parts back as a template (escaping `${` in text): `formatTemplate(parseTemplate(s))`. */
export function formatTemplate(parts: readonly TemplatePart[]): string {
  return parts
    .map((part) => {
      switch (part.kind) {
        case 'text':
          return part.text.replaceAll('${', () => '$${');
        case 'input':
          return `\${input:${part.id}}`;
        case 'variable':
          return part.fallback === undefined
            ? `\${${part.name}}`
            : `\${${part.name}${part.fallback.ifEmpty ? ':-' : '-'}${part.fallback.text}}`;
      }
    })
    .join('');
}
