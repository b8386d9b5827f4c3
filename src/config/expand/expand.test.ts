import { describe, expect, it } from 'vitest';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { formatKeyPath } from '../diagnostics.js';
import { expandServer } from './expand.js';
import { InputResolver, callbackInputProvider } from './input-providers.js';
import type { ServerConfig, TransportConfig } from '../model.js';
import { formatTemplate, parseTemplate } from './template.js';

const HOME = '/home/tester';

function server(transport: Partial<TransportConfig> = {}, name = 's'): ServerConfig {
  return {
    name,
    enabled: true,
    transport: {
      type: 'stdio',
      command: 'node',
      args: [],
      env: {},
      ...transport,
    } as TransportConfig,
    source: { file: '/cfg/.mcp.json', dialect: 'claude-code', path: ['mcpServers', name] },
  };
}

/** Expands `template` as an env value (no `~`) and as an argument (with `~`). */
async function expand(
  template: string,
  env: Record<string, string | undefined>,
): Promise<{ env: string; arg: string } | McpHostError> {
  const result = await expandServer(server({ args: [template], env: { V: template } }), {
    env,
    homeDir: HOME,
  });
  if (!result.ok) return result.error;
  const t = result.server.transport;
  if (t.type !== 'stdio') throw new Error('unreachable');
  return { env: t.env.V!, arg: t.args[0]! };
}

describe('expansion of the canonical grammar', () => {
  const cases: {
    name: string;
    template: string;
    env: Record<string, string | undefined>;
    want?: string;
    /** Only when the argument differs (a leading `~`). */
    wantArg?: string;
    error?: { code: string; match: RegExp };
  }[] = [
    { name: 'plain text', template: 'hello', env: {}, want: 'hello' },
    { name: 'a set variable', template: '${A}', env: { A: 'x' }, want: 'x' },
    {
      name: 'variables within text',
      template: 'a${A}b${B}c',
      env: { A: '1', B: '2' },
      want: 'a1b2c',
    },
    { name: 'empty but set counts as set', template: '${A}', env: { A: '' }, want: '' },
    {
      name: 'missing, no default',
      template: '${MISSING}',
      env: {},
      error: { code: 'CONFIG_VARIABLE_UNSET', match: /variable MISSING is not set/ },
    },
    { name: ':- default when unset', template: '${A:-dflt}', env: {}, want: 'dflt' },
    { name: ':- default when empty', template: '${A:-dflt}', env: { A: '' }, want: 'dflt' },
    { name: ':- value when set', template: '${A:-dflt}', env: { A: 'v' }, want: 'v' },
    { name: '${VAR:-} is empty when unset', template: '<${A:-}>', env: {}, want: '<>' },
    { name: '- default when unset', template: '${A-dflt}', env: {}, want: 'dflt' },
    { name: '- keeps an empty value', template: '<${A-dflt}>', env: { A: '' }, want: '<>' },
    {
      name: 'a default with spaces and colons',
      template: '${A:-a b:c-d}',
      env: {},
      want: 'a b:c-d',
    },
    {
      name: '$VAR is left alone',
      template: '$A and $$ and $',
      env: { A: 'x' },
      want: '$A and $$ and $',
    },
    { name: '$${ escapes', template: '$${A}', env: { A: 'x' }, want: '${A}' },
    { name: 'leftmost $${ wins', template: '$$${A}', env: { A: 'x' }, want: '$${A}' },
    { name: 'a lone } is text', template: 'a}b', env: {}, want: 'a}b' },
    {
      name: 'single pass: a value holding ${B} is not expanded again',
      template: '${A}',
      env: { A: '${B}', B: 'nope' },
      want: '${B}',
    },
    {
      name: 'single pass: a default is literal',
      template: '${A:-$B}',
      env: { B: 'nope' },
      want: '$B',
    },
    {
      name: 'nested references are refused',
      template: '${A:-${B}}',
      env: { B: 'b' },
      error: { code: 'CONFIG_INVALID', match: /nested references/ },
    },
    {
      name: 'an unterminated ${',
      template: 'x${A',
      env: {},
      error: { code: 'CONFIG_INVALID', match: /unterminated/ },
    },
    {
      name: 'an empty ${}',
      template: '${}',
      env: {},
      error: { code: 'CONFIG_INVALID', match: /empty reference/ },
    },
    {
      name: 'a foreign ${env:X} with a hint',
      template: '${env:A}',
      env: { A: 'x' },
      error: { code: 'CONFIG_INVALID', match: /canonical form is `\$\{A\}`/ },
    },
    {
      name: 'an invalid name',
      template: '${1A}',
      env: {},
      error: { code: 'CONFIG_INVALID', match: /invalid reference/ },
    },
    {
      name: '~/ at the start of an argument',
      template: '~/x',
      env: {},
      want: '~/x',
      wantArg: `${HOME}/x`,
    },
    { name: 'a lone ~', template: '~', env: {}, want: '~', wantArg: HOME },
    { name: '~user is not expanded', template: '~bob/x', env: {}, want: '~bob/x' },
    {
      name: '~ before a variable is not ~user',
      template: '~${A}',
      env: { A: 'bob' },
      want: '~bob',
    },
    { name: '~ elsewhere is not expanded', template: 'a/~/x', env: {}, want: 'a/~/x' },
    {
      name: 'a ~ given by a variable is not expanded',
      template: '${A}',
      env: { A: '~/x' },
      want: '~/x',
    },
    {
      name: '~ followed by a variable',
      template: '~/${A}',
      env: { A: 'd' },
      want: '~/d',
      wantArg: `${HOME}/d`,
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const result = await expand(c.template, c.env);
      if (c.error !== undefined) {
        expect(result).toBeInstanceOf(McpHostError);
        expect((result as McpHostError).code).toBe(c.error.code);
        expect((result as McpHostError).message).toMatch(c.error.match);
        return;
      }
      expect(result).toEqual({ env: c.want, arg: c.wantArg ?? c.want });
    });
  }

  it('parses and formats back', () => {
    for (const t of ['a${A}b', '${A:-x}', '${A-}', '${input:tok}', '$${X}', '$A']) {
      expect(formatTemplate(parseTemplate(t))).toBe(t);
    }
  });

  it('a template off the grammar throws CONFIG_INVALID saying why', () => {
    for (const [t, why] of [
      ['${A', /unterminated/],
      ['${}', /empty reference/],
      ['${A:-${B}}', /nested references/],
      ['${env:HOME}', /the canonical form is `\$\{HOME\}`/],
    ] as const) {
      let caught: unknown;
      try {
        parseTemplate(t);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(McpHostError);
      expect(caught).toMatchObject({ code: 'CONFIG_INVALID', permanent: true });
      expect((caught as McpHostError).message).toMatch(why);
    }
  });

  it('never expands keys', async () => {
    const result = await expandServer(server({ env: { '${A}': '${A}' } }), { env: { A: 'v' } });
    expect(result.ok && result.server.transport).toMatchObject({ env: { '${A}': 'v' } });
  });

  it('expands only the fields that allow it', async () => {
    const s: ServerConfig = {
      ...server({
        type: 'http',
        url: 'https://h/${P}',
        headers: { Authorization: 'Bearer ${T}' },
      }),
      oauth: { clientId: '${ID}', clientSecret: '${SECRET}', scopes: ['${SCOPE}'] },
      tools: { allow: ['${A}'] },
    };
    const result = await expandServer(s, {
      env: { P: 'mcp', T: 'tok', ID: 'id', SECRET: 'sec', SCOPE: 'read', A: 'no' },
    });
    if (!result.ok) throw result.error;
    expect(result.server.transport).toEqual({
      type: 'http',
      url: 'https://h/mcp',
      headers: { Authorization: 'Bearer tok' },
    });
    expect(result.server.oauth).toEqual({ clientId: 'id', clientSecret: 'sec', scopes: ['read'] });
    expect(s.tools?.allow).toEqual(['${A}']); // tool filters are globs, not templates
  });

  it('reports every unset variable with file and key path, and no value', async () => {
    const s = server({
      command: '${BIN}',
      args: ['--token', '${TOKEN}', '${SET}'],
      env: { 'dotted.key': '${OTHER}', KEEP: '${SET}' },
    });
    const result = await expandServer(s, { env: { SET: 'value-of-set-variable' } });
    expect(result.ok).toBe(false);
    const error = (result as { error: McpHostError }).error;
    expect(error.code).toBe('CONFIG_VARIABLE_UNSET');
    expect(error.serverName).toBe('s');
    expect(error.message).toContain("server 's': not started");
    expect(error.message).toContain(
      '/cfg/.mcp.json: mcpServers.s.command: variable BIN is not set',
    );
    expect(error.message).toContain('mcpServers.s.args[1]: variable TOKEN is not set');
    expect(error.message).toContain('mcpServers.s.env["dotted.key"]: variable OTHER is not set');
    expect(error.message).not.toContain('value-of-set-variable');
    expect(error.details).toMatchObject({ variables: ['BIN', 'TOKEN', 'OTHER'] });
    expect(JSON.stringify(error)).not.toContain('value-of-set-variable');
  });

  it('checks variables before asking for inputs', async () => {
    let asked = 0;
    const inputs = new InputResolver({
      provider: callbackInputProvider(() => {
        asked++;
        return 'x';
      }),
    });
    const result = await expandServer(server({ args: ['${input:a}', '${NOPE}'] }), {
      env: {},
      inputs,
    });
    expect(result.ok).toBe(false);
    expect(asked).toBe(0);
  });

  it('resolves inputs once per id and fails without a provider', async () => {
    const seen: string[] = [];
    const inputs = new InputResolver({
      provider: callbackInputProvider((input) => {
        seen.push(input.id);
        return `value-${input.id}`;
      }),
    });
    const s = server({ args: ['${input:a}', '${input:a}-${input:b}'] });
    const result = await expandServer(s, { env: {}, inputs });
    expect(result.ok && result.server.transport).toMatchObject({
      args: ['value-a', 'value-a-value-b'],
    });
    await expandServer(s, { env: {}, inputs });
    expect(seen).toEqual(['a', 'b']);

    const without = await expandServer(s, { env: {} });
    expect(without.ok).toBe(false);
    expect((without as { error: McpHostError }).error.code).toBe('CONFIG_INPUT_REQUIRED');
  });

  it('formats key paths', () => {
    expect(formatKeyPath(['servers', 'a', 'args', 2])).toBe('servers.a.args[2]');
    expect(formatKeyPath(['servers', 'my.server', 'env', 'X'])).toBe('servers["my.server"].env.X');
  });
});
