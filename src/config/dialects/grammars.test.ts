import { describe, expect, it } from 'vitest';
import { expandServer } from '../expand/expand.js';
import type { ServerConfig } from '../model.js';
import { parseCanonical, printCanonical } from './canonical-template.js';
import {
  claudeCodeGrammar,
  cursorGrammar,
  literalGrammar,
  vscodeGrammar,
  writeTemplate,
  type DialectGrammar,
} from './grammars.js';

const CONTEXT = { workspaceFolder: '/work/project', homeDir: '/home/tester' };

/** A dialect string as a canonical string, or `error:<kind>`; warnings as `+<kind>`. */
function toCanonical(grammar: DialectGrammar, text: string): string {
  const read = grammar.read(text, CONTEXT);
  const errors = read.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) return `error:${errors[0]!.kind}`;
  const printed = printCanonical(read.parts);
  if (!printed.ok) return 'error:not-expressible';
  return printed.value + read.problems.map((p) => ` +${p.kind}`).join('');
}

/** A canonical string as a dialect string, or `error:<kind>`; warnings as `+<kind>`. */
function fromCanonical(grammar: DialectGrammar, canonical: string): string {
  const parts = parseCanonical(canonical);
  if (!parts.ok) throw new Error(parts.message);
  const written = writeTemplate(grammar, parts.value);
  if (!written.ok) return `error:${written.problems.find((p) => p.severity === 'error')!.kind}`;
  return written.text + written.problems.map((p) => ` +${p.kind}`).join('');
}

describe('reading each grammar into the canonical one', () => {
  it.each([
    // Claude Code: ${VAR} and ${VAR:-default}; an empty VAR counts as set, so :- is canonical -.
    ['${VAR}', '${VAR}'],
    ['${VAR:-}', '${VAR-}'],
    ['${VAR:-fallback}', '${VAR-fallback}'],
    ['${VAR:-https://x:8080/a}', '${VAR-https://x:8080/a}'],
    ['a-${A}-${B:-b}-c', 'a-${A}-${B-b}-c'],
    ['$VAR and $$ and $', '$VAR and $$ and $'], // $VAR is not expanded by Claude Code
    ['unterminated ${VAR', 'unterminated $${VAR'],
    ['empty ${}', 'empty $${}'],
    ['${A:-x:-y}', '${A-x} +template-truncated'], // Claude Code splits with a limit of 2
    ['${A:-${B}}', 'error:not-expressible'], // nested: a default holding "${B" has no canonical form
    ['$${HOME}', 'error:not-expressible'], // "$" + ${HOME}: canonical $${ is the escape
    ['${VAR-default}', 'error:invalid-variable'], // Claude Code looks up a variable named "VAR-default"
    ['${bad name:-x}', 'x +invalid-variable'],
    ['${input:token}', 'error:invalid-variable'],
    ['${env:HOME}', 'error:invalid-variable'],
  ])('Claude Code %s → %s', (text, expected) => {
    expect(toCanonical(claudeCodeGrammar, text)).toBe(expected);
  });

  it.each([
    ['${env:VAR}', '${VAR}'],
    ['${env:A}${env:B}', '${A}${B}'],
    ['${input:api-key}', '${input:api-key}'],
    ['${workspaceFolder}/data', '/work/project/data'],
    ['${workspaceFolderBasename}', 'project'],
    ['${userHome}/.config', '/home/tester/.config'],
    ['$VAR stays', '$VAR stays'],
    ['${VAR} is not VS Code grammar', '$${VAR} is not VS Code grammar +literal-variable'],
    ['${config:editor.fontSize}', '$${config:editor.fontSize} +unsupported-variable'],
    ['${command:pick}', '$${command:pick} +unsupported-variable'],
    ['${env:}', '$${env:} +unsupported-variable'],
    ['${', '$${'],
    ['$${env:X}', 'error:not-expressible'], // "$" + ${X}
  ])('VS Code %s → %s', (text, expected) => {
    expect(toCanonical(vscodeGrammar, text)).toBe(expected);
  });

  it.each([
    ['${env:VAR}', '${VAR}'],
    ['${input:key}', '$${input:key} +literal-variable'], // Cursor has no inputs
    ['${workspaceFolder}', '/work/project'],
    ['${config:x}', '$${config:x} +literal-variable'],
  ])('Cursor %s → %s', (text, expected) => {
    expect(toCanonical(cursorGrammar, text)).toBe(expected);
  });

  it.each([
    ['${HOME}/x', '$${HOME}/x'],
    ['$HOME', '$HOME'],
    ['$${', '$$${'],
  ])('no variables (Claude Desktop, crewAI) %s → %s', (text, expected) => {
    expect(toCanonical(literalGrammar('Claude Desktop'), text)).toBe(expected);
  });

  it('without a workspace, ${workspaceFolder} stays literal with a warning', () => {
    const read = vscodeGrammar.read('${workspaceFolder}/x', {});
    expect(read.parts).toEqual([{ kind: 'text', text: '${workspaceFolder}/x' }]);
    expect(read.problems.map((p) => p.kind)).toEqual(['unsupported-variable']);
  });
});

describe('writing the canonical grammar into each dialect', () => {
  it.each([
    ['${VAR}', '${VAR}'],
    ['${VAR-d}', '${VAR:-d}'],
    ['${VAR-}', '${VAR:-}'],
    ['${VAR:-d}', '${VAR:-d} +template-semantics'], // Claude Code keeps an empty VAR
    ['$VAR', '$VAR'],
    ['$${', '${'], // a lone literal "${" is not a Claude Code reference
    ['$${HOME}', 'error:not-expressible'], // Claude Code would expand it: refused
    ['$${ and }', 'error:not-expressible'],
    ['${input:id}', 'error:not-expressible'],
    ['${A-x:-y}', 'error:not-expressible'], // Claude Code would drop ":-y"
  ])('Claude Code %s → %s', (canonical, expected) => {
    expect(fromCanonical(claudeCodeGrammar, canonical)).toBe(expected);
  });

  it.each([
    ['${VAR}', '${env:VAR}'],
    ['Bearer ${TOKEN}', 'Bearer ${env:TOKEN}'],
    ['${input:id}', '${input:id}'],
    ['${VAR:-}', '${env:VAR} +template-semantics'],
    ['${VAR-}', '${env:VAR} +template-semantics'],
    ['${VAR:-x}', 'error:not-expressible'],
    ['$${HOME}', '${HOME}'], // VS Code leaves an unknown name as it is
    ['$${workspaceFolder}', 'error:not-expressible'], // VS Code would resolve it
    ['$${env:X}', 'error:not-expressible'],
    ['$${/}', 'error:not-expressible'],
  ])('VS Code %s → %s', (canonical, expected) => {
    expect(fromCanonical(vscodeGrammar, canonical)).toBe(expected);
  });

  it.each([
    ['${VAR}', '${env:VAR}'],
    ['${input:id}', 'error:not-expressible'],
    ['$${input:id}', '${input:id}'], // literal in Cursor
  ])('Cursor %s → %s', (canonical, expected) => {
    expect(fromCanonical(cursorGrammar, canonical)).toBe(expected);
  });

  it.each([
    ['plain', 'plain'],
    ['$${HOME}', '${HOME}'],
    ['${HOME}', 'error:not-expressible'],
    ['${input:x}', 'error:not-expressible'],
  ])('no variables %s → %s', (canonical, expected) => {
    expect(fromCanonical(literalGrammar('crewAI'), canonical)).toBe(expected);
  });
});

describe('the translation keeps what the tool would have done (expanded by the canonical engine)', () => {
  const source = {
    file: '/p/.mcp.json',
    dialect: 'claude-code' as const,
    path: ['mcpServers', 's'],
  };
  async function expandEnv(canonical: string, env: Record<string, string>): Promise<string> {
    const server: ServerConfig = {
      name: 's',
      transport: { type: 'stdio', command: 'node', args: [], env: { X: canonical } },
      enabled: true,
      source,
    };
    const result = await expandServer(server, { env });
    if (!result.ok) return `error:${result.error.code}`;
    const t = result.server.transport;
    return t.type === 'stdio' ? t.env.X! : '';
  }
  const claude = (text: string): string => toCanonical(claudeCodeGrammar, text);

  it.each([
    // [Claude Code text, environment, what Claude Code gives]
    ['${VAR:-d}', {}, 'd'],
    ['${VAR:-d}', { VAR: '' }, ''], // empty but set: Claude Code keeps it
    ['${VAR:-d}', { VAR: 'v' }, 'v'],
    ['${VAR:-}', {}, ''],
    ['${VAR}', { VAR: '' }, ''], // an empty variable counts as set
    ['${VAR}', {}, 'error:CONFIG_VARIABLE_UNSET'], // Claude Code: missing; mcp-host: fails the server
    ['$VAR ${VAR}', { VAR: 'v' }, '$VAR v'],
    ['${A:-${B}}-not-read', { B: 'b' }, 'error'],
  ])('%s with %j → %s', async (text, env, expected) => {
    const canonical = claude(text);
    if (expected === 'error') return expect(canonical.startsWith('error:')).toBe(true);
    expect(await expandEnv(canonical, env)).toBe(expected);
  });

  it('a value holding ${…} is not expanded again (single pass)', async () => {
    expect(await expandEnv(claude('${VAR}'), { VAR: '${OTHER}', OTHER: 'x' })).toBe('${OTHER}');
  });

  it('a literal ${HOME} from Claude Desktop stays literal after expansion', async () => {
    const canonical = toCanonical(literalGrammar('Claude Desktop'), '${HOME}');
    expect(await expandEnv(canonical, { HOME: '/home/x' })).toBe('${HOME}');
  });

  it('VS Code ${env:VAR} fails the server when VAR is unset (VS Code itself would put "")', async () => {
    expect(await expandEnv(toCanonical(vscodeGrammar, '${env:VAR}'), {})).toBe(
      'error:CONFIG_VARIABLE_UNSET',
    );
  });
});

it('messages name variables, never defaults or values (either may be a secret)', () => {
  const canary = 'sk-CANARY-4711';
  const messages = [
    ...claudeCodeGrammar.read(`\${bad name:-${canary}}`, {}).problems,
    ...claudeCodeGrammar.read(`\${A:-x:-${canary}}`, {}).problems,
    ...vscodeGrammar.adapt([
      { kind: 'variable', name: 'X', fallback: { text: canary, ifEmpty: true } },
    ]).problems,
    ...(() => {
      const written = writeTemplate(claudeCodeGrammar, [
        { kind: 'text', text: `${canary} \${HOME}` },
      ]);
      return written.problems;
    })(),
  ].map((p) => p.message);
  expect(messages).toHaveLength(4);
  for (const message of messages) expect(message).not.toContain('CANARY');
});
