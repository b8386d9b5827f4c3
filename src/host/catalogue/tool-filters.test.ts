import { describe, expect, it, vi } from 'vitest';
import { McpHostError } from '../../errors/mcp-host-error.js';
import {
  compileAllowBlock,
  compileGlob,
  compileGlobs,
  compileToolFilter,
  ToolAccess,
  type ToolAccessEntry,
  type ToolFilterContext,
} from './tool-filters.js';

describe('compileGlob', () => {
  it.each([
    // pattern, name, matches
    ['read_file', 'read_file', true],
    ['read_file', 'read_files', false],
    ['read_file', 'Read_file', false],
    ['*', '', true],
    ['*', 'anything at all/with slash', true],
    ['**', 'x', true],
    ['read_*', 'read_file', true],
    ['read_*', 'read_', true],
    ['read_*', 'write_file', false],
    ['*_file', 'read_file', true],
    ['*_file', 'read_file_x', false],
    ['*file*', 'profile_editor', true],
    ['r?ad', 'read', true],
    ['r?ad', 'rad', false],
    ['r?ad', 'reead', false],
    ['?', '🔥', true],
    ['??', '🔥', false],
    ['a?c', 'a🔥c', true],
    ['🔥*', '🔥 fire', true],
    ['*🔥', 'fire 🔥', true],
    ['a*b*c', 'aXXbYYc', true],
    ['a*b*c', 'aXXcYYb', false],
    ['a*a*a*b', 'aaaaaaaaab', true],
    ['*a*b', 'ab', true],
    ['', '', true],
    ['', 'x', false],
    // Everything but `*`, `?` and `\` is literal: no RegExp meaning leaks through.
    ['a.c', 'abc', false],
    ['a.c', 'a.c', true],
    ['(a|b)+', '(a|b)+', true],
    ['(a|b)+', 'a', false],
    ['[ab]', 'a', false],
    ['^x$', '^x$', true],
    ['fs/*', 'fs/read_file', true],
    ['fs/*', 'fsx/read_file', false],
    ['\\*', '*', true],
    ['\\*', 'x', false],
    ['a\\?', 'a?', true],
    ['a\\?', 'ab', false],
    ['a\\\\', 'a\\', true],
    ['a\\', 'a\\', true],
  ])('%j against %j: %s', (pattern, name, matches) => {
    expect(compileGlob(pattern)(name)).toBe(matches);
  });

  it('stays linear-ish on patterns that make a backtracking RegExp explode', () => {
    const pattern = `${'*a'.repeat(30)}*b`;
    const name = 'a'.repeat(5_000);
    const started = performance.now();
    expect(compileGlob(pattern)(name)).toBe(false);
    // O(name × pattern) = 5,000 × 61 steps at most; a backtracking RegExp would not finish.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('agrees with an equivalent RegExp on 5,000 random short patterns and names', () => {
    let state = 42;
    const next = (n: number) => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return (state >>> 16) % n;
    };
    const word = (alphabet: string, max: number) => {
      let text = '';
      for (let i = next(max + 1); i > 0; i--) text += alphabet[next(alphabet.length)];
      return text;
    };
    for (let i = 0; i < 5_000; i++) {
      const pattern = word('ab*?', 7);
      const name = word('ab', 8);
      const source = pattern.replace(/\*/g, '.*').replace(/\?/g, '.');
      expect(compileGlob(pattern)(name), `${pattern} ${name}`).toBe(
        new RegExp(`^${source}$`, 's').test(name),
      );
    }
  });

  it('matches any of several globs; an empty list matches nothing', () => {
    const any = compileGlobs(['get_*', 'list_?', 'exact']);
    expect(['get_x', 'list_a', 'exact', 'list_ab', 'other'].map(any)).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(compileGlobs([])('x')).toBe(false);
  });

  it.each([[['a', 1]], ['a*'], [null]])('refuses %j (INVALID_ARGUMENT)', (patterns) => {
    expect(() => compileGlobs(patterns as unknown as string[])).toThrow(McpHostError);
  });
});

describe('compileAllowBlock', () => {
  it.each([
    // spec, name, allowed
    [undefined, 'x', true],
    [{}, 'x', true],
    [{ allow: [] }, 'x', true],
    [{ allow: ['read_*'] }, 'read_file', true],
    [{ allow: ['read_*'] }, 'write_file', false],
    [{ block: ['delete_*'] }, 'delete_repo', false],
    [{ block: ['delete_*'] }, 'read_file', true],
    [{ allow: ['*'], block: ['delete_*'] }, 'delete_repo', false],
    [{ allow: ['delete_repo'], block: ['delete_*'] }, 'delete_repo', false],
    [{ allow: ['read_*', 'list_*'], block: ['*_secret'] }, 'list_secret', false],
    [{ allow: ['read_*', 'list_*'], block: ['*_secret'] }, 'list_files', true],
    [{ block: [] }, 'x', true],
  ])('%o: %j -> %s', (spec, name, allowed) => {
    expect(compileAllowBlock(spec)(name)).toBe(allowed);
  });
});

describe('compileToolFilter', () => {
  const filter = compileToolFilter({
    github: { allow: ['get_*', 'list_*', 'search_*'], block: ['*_secret*'] },
    fs: { block: ['write_*', 'delete_*', 'move_file'] },
    memory: undefined,
  });

  it.each([
    ['github', 'get_issue', true],
    ['github', 'create_issue', false],
    ['github', 'get_secret_scanning_alert', false],
    ['fs', 'read_file', true],
    ['fs', 'write_file', false],
    ['fs', 'move_file', false],
    ['memory', 'anything', true],
    ['unconfigured', 'anything', true],
    ['constructor', 'x', true],
    ['__proto__', 'x', true],
  ])('%s / %s -> %s', (server, tool, allowed) => {
    expect(filter(server, tool)).toBe(allowed);
  });
});

interface Entry extends ToolAccessEntry {
  readonly annotations?: { readOnlyHint?: boolean };
}

const tool = (server: string | undefined, originalName: string, name?: string): Entry => ({
  server,
  originalName,
  name: name ?? (server === undefined ? originalName : `mcp__${server}__${originalName}`),
});

describe('ToolAccess: static layers', () => {
  const access = new ToolAccess<Entry>({
    servers: { fs: { block: ['write_*'] } },
    agents: {
      reader: { allow: ['fs/read_*', 'mcp__github__get_*', 'clock'] },
      admin: {},
      intern: { block: ['github/*', 'mcp__fs__read_secret'] },
      '*': { allow: ['clock'] },
      constructor: { allow: ['nothing'] },
    },
  });

  it.each([
    // entry, agent, denial
    [tool('fs', 'read_file'), 'reader', undefined],
    [tool('fs', 'list_dir'), 'reader', { by: 'agent', agent: 'reader' }],
    [tool('github', 'get_issue'), 'reader', undefined],
    [tool('github', 'create_issue'), 'reader', { by: 'agent', agent: 'reader' }],
    [tool(undefined, 'clock'), 'reader', undefined],
    [tool('fs', 'write_file'), 'admin', { by: 'server', server: 'fs' }],
    [tool('fs', 'write_file'), 'reader', { by: 'server', server: 'fs' }],
    [tool('fs', 'read_file'), 'admin', undefined],
    [tool('github', 'get_issue'), 'intern', { by: 'agent', agent: 'intern' }],
    [tool('fs', 'read_secret'), 'intern', { by: 'agent', agent: 'intern' }],
    [tool('fs', 'read_file'), 'intern', undefined],
    // Agents not listed, and callers with no agent, get `*`.
    [tool(undefined, 'clock'), 'stranger', undefined],
    [tool('fs', 'read_file'), 'stranger', { by: 'agent', agent: 'stranger' }],
    [tool('fs', 'read_file'), undefined, { by: 'agent', agent: undefined }],
    [tool('fs', 'read_file'), 'toString', { by: 'agent', agent: 'toString' }],
    [tool('fs', 'read_file'), 'constructor', { by: 'agent', agent: 'constructor' }],
    // `server/tool` uses the original name; a native tool has only its exposed name.
    [tool('fs', 'read_file', 'renamed'), 'reader', undefined],
    [tool('fs', 'list', 'fs/read_file'), 'reader', { by: 'agent', agent: 'reader' }],
    [tool(undefined, 'fs/read_x'), 'reader', { by: 'agent', agent: 'reader' }],
  ] as const)('%o as %s -> %o', (entry, agent, denial) => {
    expect(access.check(entry, { agent })).toEqual(denial);
    expect(access.checkStatic(entry, { agent })).toEqual(denial);
    expect(access.allows(entry, { agent })).toBe(denial === undefined);
  });

  it('with no agent permissions at all, only the server layer applies', () => {
    const open = new ToolAccess({ servers: { fs: { allow: ['read_*'] } } });
    expect(open.allows(tool('fs', 'read_file'))).toBe(true);
    expect(open.allows(tool('fs', 'write_file'), { agent: 'anyone' })).toBe(false);
    expect(open.allows(tool(undefined, 'native'))).toBe(true);
  });

  it('answers synchronously when there is no dynamic filter', () => {
    expect(typeof access.allows(tool('fs', 'read_file'), { agent: 'admin' })).toBe('boolean');
    const listed = access.visible(
      [tool('fs', 'read_file'), tool('fs', 'write_file'), tool(undefined, 'clock')],
      { agent: 'reader' },
    );
    expect(Array.isArray(listed)).toBe(true);
    expect((listed as Entry[]).map((e) => e.name)).toEqual(['mcp__fs__read_file', 'clock']);
  });

  it.each([
    [{ servers: 'x' }],
    [{ agents: { a: { allow: 'x*' } } }],
    [{ agents: { a: { block: [1] } } }],
    [{ servers: { fs: 3 } }],
    [{ servers: { fs: { allow: '' } } }],
    [{ filter: true }],
  ])('refuses %o (INVALID_ARGUMENT)', (options) => {
    expect(() => new ToolAccess(options as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});

describe('ToolAccess: the dynamic filter', () => {
  it('sees the entry, the agent, the server and the run context, after the static layers', () => {
    const calls: [string, ToolFilterContext][] = [];
    const access = new ToolAccess<Entry>({
      servers: { fs: { block: ['delete_*'] } },
      filter: (entry, context) => {
        calls.push([entry.name, context]);
        return entry.annotations?.readOnlyHint === true;
      },
    });
    const run = { id: 7 };
    const readOnly = { ...tool('fs', 'read_file'), annotations: { readOnlyHint: true } };
    expect(access.allows(readOnly, { agent: 'a', run })).toBe(true);
    expect(access.allows(tool('fs', 'write_file'), { agent: 'a', run })).toBe(false);
    expect(access.check(tool('fs', 'write_file'))).toEqual({ by: 'filter' });
    expect(access.allows(tool('fs', 'delete_file'), { agent: 'a', run })).toBe(false);
    expect(calls).toEqual([
      ['mcp__fs__read_file', { agent: 'a', server: 'fs', run }],
      ['mcp__fs__write_file', { agent: 'a', server: 'fs', run }],
      ['mcp__fs__write_file', { agent: undefined, server: 'fs', run: undefined }],
    ]);
  });

  it('may be asynchronous; listing then waits for all verdicts and keeps the order', async () => {
    const access = new ToolAccess({
      filter: async (entry, context) => {
        await Promise.resolve();
        return context.agent === 'ops' || !entry.originalName.startsWith('deploy');
      },
    });
    const entries = [tool('ci', 'deploy_prod'), tool('ci', 'status'), tool(undefined, 'deploy')];
    expect(await access.visible(entries, { agent: 'dev' })).toEqual([entries[1]]);
    expect(await access.visible(entries, { agent: 'ops' })).toEqual(entries);
    const verdict = access.allows(entries[0]!, { agent: 'dev' });
    expect(verdict).toBeInstanceOf(Promise);
    expect(await verdict).toBe(false);
  });

  it('fails closed: a throw, a rejection or a non-boolean hides the tool', async () => {
    const boom = new Error('boom');
    const cases: [() => boolean | Promise<boolean>, unknown][] = [
      [
        () => {
          throw boom;
        },
        { by: 'filter', error: boom },
      ],
      [() => Promise.reject(boom), { by: 'filter', error: boom }],
      [() => 'yes' as unknown as boolean, { by: 'filter' }],
      [() => Promise.resolve(1 as unknown as boolean), { by: 'filter' }],
      [() => true, undefined],
    ];
    for (const [filter, denial] of cases) {
      const access = new ToolAccess({ filter });
      expect(await access.check(tool('s', 't'))).toEqual(denial);
    }
  });

  it('is never asked about a tool the static layers hide', () => {
    const filter = vi.fn(() => true);
    const access = new ToolAccess({
      servers: { s: { allow: ['ok'] } },
      agents: { a: { block: ['s/ok'] } },
      filter,
    });
    expect(access.allows(tool('s', 'hidden'))).toBe(false);
    expect(access.allows(tool('s', 'ok'), { agent: 'a' })).toBe(false);
    expect(filter).not.toHaveBeenCalled();
    expect(access.allows(tool('s', 'ok'), { agent: 'b' })).toBe(true);
    expect(filter).toHaveBeenCalledTimes(1);
  });
});
