/**
 * The variable grammar of each dialect, translated to and from canonical template parts. One
 * pass over the text with the dialect's own pattern, as the tool itself does it; what a variable
 * stands for is never looked at (that is expansion, done later on the canonical form).
 *
 * Writing goes through `adapt` (what the target can say, with warnings or errors), `print`, and a
 * check that reading the printed text back gives the adapted parts: literal text that the target
 * would expand (such as `${HOME}` written to a file that expands `${HOME}`) is refused, never
 * written.
 */
import { basename, sep } from 'node:path';
import { ENV_NAME, INPUT_ID, normaliseParts, partsEqual } from './canonical-template.js';
import type { TemplatePart } from '../expand/template.js';

export interface GrammarProblem {
  severity: 'error' | 'warning';
  kind: string;
  message: string;
}

/**
 * The kind of a warning about `${…}` text that the tool itself leaves as it is too (a name it does
 * not know): kept literal, so writing it back is faithful.
 */
export const LITERAL_VARIABLE = 'literal-variable';

/** What some variables stand for at read time (VS Code and Cursor predefined variables). */
export interface GrammarContext {
  workspaceFolder?: string;
  homeDir?: string;
}

export interface DialectGrammar {
  /** A name for messages, e.g. `Claude Code "${VAR}"`. */
  readonly label: string;
  read(
    text: string,
    context: GrammarContext,
  ): { parts: TemplatePart[]; problems: GrammarProblem[] };
  adapt(parts: readonly TemplatePart[]): { parts: TemplatePart[]; problems: GrammarProblem[] };
  print(parts: readonly TemplatePart[]): string;
}

export type WriteTemplateResult =
  | { ok: true; text: string; problems: GrammarProblem[] }
  | { ok: false; problems: GrammarProblem[] };

/** Canonical parts as this grammar's text, or errors saying why not. */
export function writeTemplate(
  grammar: DialectGrammar,
  parts: readonly TemplatePart[],
): WriteTemplateResult {
  const adapted = grammar.adapt(parts);
  if (adapted.problems.some((problem) => problem.severity === 'error'))
    return { ok: false, problems: adapted.problems };
  const text = grammar.print(adapted.parts);
  const back = grammar.read(text, {});
  const misread = back.problems.some((problem) => problem.kind !== LITERAL_VARIABLE);
  if (misread || !partsEqual(back.parts, adapted.parts))
    return {
      ok: false,
      problems: [
        ...adapted.problems,
        {
          severity: 'error',
          kind: 'not-expressible',
          message: `${grammar.label} would read literal "\${…}" text in it as a variable: it cannot be written there`,
        },
      ],
    };
  return { ok: true, text, problems: adapted.problems };
}

const text = (value: string): TemplatePart => ({ kind: 'text', text: value });

/** No variables at all: every string is literal (Claude Desktop, crewAI, non-expanding fields). */
export function literalGrammar(label: string): DialectGrammar {
  return {
    label,
    read: (value) => ({ parts: [text(value)], problems: [] }),
    adapt(parts) {
      const problems: GrammarProblem[] = [];
      for (const part of parts)
        if (part.kind !== 'text')
          problems.push({
            severity: 'error',
            kind: 'not-expressible',
            message: `${label} does not expand variables: ${describe(part)} cannot be written`,
          });
      return { parts: normaliseParts(parts), problems };
    },
    print: (parts) => parts.map((part) => (part.kind === 'text' ? part.text : '')).join(''),
  };
}

/**
 * A reference's name for a message, shortened. Messages never quote a default or a whole value
 * (either may be a secret).
 */
function quoteName(name: string): string {
  return JSON.stringify(name.length <= 40 ? name : `${name.slice(0, 39)}…`);
}

function describe(part: TemplatePart): string {
  if (part.kind === 'input') return `\${input:${part.id}}`;
  if (part.kind === 'variable')
    return part.fallback === undefined
      ? `\${${part.name}}`
      : `\${${part.name}${part.fallback.ifEmpty ? ':-' : '-'}…}`;
  return JSON.stringify(part.text);
}

/**
 * Claude Code `.mcp.json` (command, args, env, url, headers): the pattern `\$\{([^}]+)\}`, its
 * content split once on `:-`. `${VAR}` is VAR (an empty VAR counts as set); `${VAR:-default}` is
 * VAR when set **even if empty**, else default: canonical `${VAR-default}`. Text after a second
 * `:-` is dropped by Claude Code (it splits with a limit of 2). `$VAR` is literal. No escape.
 */
export const claudeCodeGrammar: DialectGrammar = {
  label: 'Claude Code',
  read(value) {
    const parts: TemplatePart[] = [];
    const problems: GrammarProblem[] = [];
    let last = 0;
    for (const match of value.matchAll(/\$\{([^}]+)\}/g)) {
      parts.push(text(value.slice(last, match.index)));
      last = match.index + match[0].length;
      const content = match[1]!;
      const pieces = content.split(':-');
      const name = pieces[0]!;
      const fallback = pieces[1];
      if (pieces.length > 2)
        problems.push({
          severity: 'warning',
          kind: 'template-truncated',
          message: `Claude Code ignores the text after the second ":-" in the default of ${quoteName(name)}`,
        });
      if (ENV_NAME.test(name)) {
        parts.push(
          fallback === undefined
            ? { kind: 'variable', name }
            : { kind: 'variable', name, fallback: { text: fallback, ifEmpty: false } },
        );
      } else if (fallback !== undefined) {
        problems.push({
          severity: 'warning',
          kind: 'invalid-variable',
          message: `${quoteName(name)} is not a variable name: Claude Code always gives its default`,
        });
        parts.push(text(fallback));
      } else {
        problems.push({
          severity: 'error',
          kind: 'invalid-variable',
          message: `${quoteName(name)} is not a variable mcp-host can expand (Claude Code reports it missing)`,
        });
        parts.push(text(match[0]));
      }
    }
    parts.push(text(value.slice(last)));
    return { parts: normaliseParts(parts), problems };
  },
  adapt(parts) {
    const problems: GrammarProblem[] = [];
    const out = parts.map((part): TemplatePart => {
      if (part.kind === 'input') {
        problems.push({
          severity: 'error',
          kind: 'not-expressible',
          message: `Claude Code has no inputs: \${input:${part.id}} cannot be written`,
        });
        return part;
      }
      if (part.kind === 'variable' && part.fallback?.ifEmpty === true) {
        problems.push({
          severity: 'warning',
          kind: 'template-semantics',
          message: `Claude Code's "\${${part.name}:-…}" keeps an empty ${part.name}; the default now applies only when it is unset`,
        });
        return {
          kind: 'variable',
          name: part.name,
          fallback: { text: part.fallback.text, ifEmpty: false },
        };
      }
      return part;
    });
    return { parts: normaliseParts(out), problems };
  },
  print: (parts) =>
    parts
      .map((part) => {
        if (part.kind === 'text') return part.text;
        if (part.kind === 'input') return '';
        return part.fallback === undefined
          ? `\${${part.name}}`
          : `\${${part.name}:-${part.fallback.text}}`;
      })
      .join(''),
};

/** VS Code's predefined variables that stand for a path known at read time. */
function predefined(name: string, context: GrammarContext): string | undefined {
  switch (name) {
    case 'workspaceFolder':
      return context.workspaceFolder;
    case 'workspaceFolderBasename':
      return context.workspaceFolder === undefined ? undefined : basename(context.workspaceFolder);
    case 'userHome':
      return context.homeDir;
    case 'pathSeparator':
    case '/':
      return sep;
    default:
      return undefined;
  }
}

/** Variables VS Code resolves itself (https://code.visualstudio.com/docs/reference/variables-reference). */
const VSCODE_VARIABLES =
  /^(?:env:.*|input:.*|config:.*|command:.*|extensionInstallFolder:.*|workspaceFolder(?::.*)?|workspaceFolderBasename(?::.*)?|userHome|pathSeparator|\/|cwd|execPath|defaultBuildTask|lineNumber|columnNumber|selectedText|file|fileBasename|fileBasenameNoExtension|fileDirname|fileDirnameBasename|fileExtname|fileWorkspaceFolder|relativeFile|relativeFileDirname)$/;

/** Variables Cursor resolves (its MCP docs). */
const CURSOR_VARIABLES =
  /^(?:env:.*|workspaceFolder|workspaceFolderBasename|userHome|pathSeparator|\/)$/;

/**
 * VS Code `mcp.json` (every string of a server) and Cursor `mcp.json` (the same, without inputs):
 * the pattern `\$\{([^}]*)\}`. `${env:VAR}` → canonical `${VAR}` (VS Code itself puts an empty
 * string for an unset VAR; mcp-host fails the server instead); `${input:id}` → `${input:id}`;
 * `${workspaceFolder}`, `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}`, `${/}`
 * are resolved at read time; other variables the tool knows (`${config:…}`, `${command:…}`, …)
 * are kept as literal text with an `unsupported-variable` warning, and cannot be written back;
 * names the tool does not know (`${HOME}`) stay literal, as the tool leaves them, with a
 * `literal-variable` warning. `$VAR` is literal. No escape.
 */
function editorGrammar(label: string, inputs: boolean, known: RegExp): DialectGrammar {
  return {
    label,
    read(value, context) {
      const parts: TemplatePart[] = [];
      const problems: GrammarProblem[] = [];
      let last = 0;
      for (const match of value.matchAll(/\$\{([^}]*)\}/g)) {
        parts.push(text(value.slice(last, match.index)));
        last = match.index + match[0].length;
        const body = match[1]!;
        if (body.startsWith('env:') && ENV_NAME.test(body.slice(4))) {
          parts.push({ kind: 'variable', name: body.slice(4) });
          continue;
        }
        if (inputs && body.startsWith('input:') && INPUT_ID.test(body.slice(6))) {
          parts.push({ kind: 'input', id: body.slice(6) });
          continue;
        }
        const resolved = predefined(body, context);
        if (resolved !== undefined) {
          parts.push(text(resolved));
          continue;
        }
        problems.push(
          known.test(body)
            ? {
                severity: 'warning',
                kind: 'unsupported-variable',
                message: `${label} variable ${quoteName(match[0])} is not supported by mcp-host here; kept as literal text`,
              }
            : {
                severity: 'warning',
                kind: LITERAL_VARIABLE,
                message: `${quoteName(match[0])} is not a ${label} variable: ${label} leaves it as it is, and so does mcp-host`,
              },
        );
        parts.push(text(match[0]));
      }
      parts.push(text(value.slice(last)));
      return { parts: normaliseParts(parts), problems };
    },
    adapt(parts) {
      const problems: GrammarProblem[] = [];
      const out = parts.map((part): TemplatePart => {
        if (part.kind === 'input' && !inputs)
          problems.push({
            severity: 'error',
            kind: 'not-expressible',
            message: `${label} has no inputs: \${input:${part.id}} cannot be written`,
          });
        if (part.kind !== 'variable' || part.fallback === undefined) return part;
        if (part.fallback.text !== '') {
          problems.push({
            severity: 'error',
            kind: 'not-expressible',
            message: `${label} has no defaults: the default of \${${part.name}} cannot be written`,
          });
          return part;
        }
        problems.push({
          severity: 'warning',
          kind: 'template-semantics',
          message: `${label} writes "\${env:${part.name}}" (empty when unset); read back by mcp-host, an unset ${part.name} is an error`,
        });
        return { kind: 'variable', name: part.name };
      });
      return { parts: normaliseParts(out), problems };
    },
    print: (parts) =>
      parts
        .map((part) => {
          if (part.kind === 'text') return part.text;
          if (part.kind === 'input') return `\${input:${part.id}}`;
          return `\${env:${part.name}}`;
        })
        .join(''),
  };
}

export const vscodeGrammar = editorGrammar('VS Code', true, VSCODE_VARIABLES);
export const cursorGrammar = editorGrammar('Cursor', false, CURSOR_VARIABLES);
