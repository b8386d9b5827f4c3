import { describe, expect, it } from 'vitest';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { hash8, hash32 } from './name-hash.js';
import { assignNames, exposedName, serverKeyProblems } from './name-assignment.js';
import { isProviderSafeName, type ToolNamingOptions, type ToolRef } from './namer.js';
import { ToolNames } from './tool-names.js';
import { assign, catchError, entries, HASHED, wellFormed } from './tool-names-test-helpers.js';

describe('exposedName', () => {
  it.each([
    ['github', 'create_issue', undefined, 'mcp__github__create_issue'],
    ['fs', 'read-file', undefined, 'mcp__fs__read-file'],
    ['fs', 'read_file', { separator: '-' }, 'mcp-fs-read_file'],
    ['fs', 'read_file', { prefix: '' }, 'fs__read_file'],
    ['fs', 'read_file', { prefix: 'tool', separator: '_' }, 'tool_fs_read_file'],
    ['fs', 'read_file', { format: (s: string, t: string) => `${t}_on_${s}` }, 'read_file_on_fs'],
    ['fs', 'file.read', undefined, 'mcp__fs__file_read'],
    ['fs', 'read   file', undefined, 'mcp__fs__read_file'],
    ['fs', 'café crème', undefined, 'mcp__fs__cafe_creme'],
    ['fs', 'ﬁle', undefined, 'mcp__fs__file'],
    ['fs', '🔥 hot 🔥', undefined, 'mcp__fs___hot_'],
    ['fs', '中文工具', undefined, 'mcp__fs___'],
    ['fs', '1st', undefined, 'mcp__fs__1st'],
    ['my.server', 'x', undefined, 'mcp__my_server__x'],
    // Opt-out: the seeds' style, kept as it is.
    [
      'filesystem',
      'read_file',
      { providerSafe: false, format: (s: string, t: string) => `mcp:${s}:${t}` },
      'mcp:filesystem:read_file',
    ],
    ['fs', 'café crème', { providerSafe: false, separator: ':' }, 'mcp:fs:café crème'],
    ['fs', 'line\nbreak\u202e', { providerSafe: false, separator: ':' }, 'mcp:fs:line_break_'],
  ] as const)('%s / %j with %o -> %s', (server, tool, options, expected) => {
    expect(exposedName(server, tool, options)).toBe(expected);
  });

  it('truncates an over-long name to 64 characters with a hash of the pair', () => {
    const long = 'x'.repeat(500);
    const name = exposedName('github', long);
    expect(name).toHaveLength(64);
    expect(name.startsWith('mcp__github__xxx')).toBe(true);
    expect(name).toMatch(HASHED);
    expect(isProviderSafeName(name)).toBe(true);
    expect(exposedName('github', long)).toBe(name);
    expect(exposedName('github', `${long}y`)).not.toBe(name);
    expect(exposedName('gitlab', long).slice(-8)).not.toBe(name.slice(-8));
  });

  it('keeps the server namespace whole when truncating, and honours maxLength', () => {
    const name = exposedName('srv', 'a'.repeat(100), { maxLength: 32 });
    expect(name).toHaveLength(32);
    expect(name.startsWith('mcp__srv__a')).toBe(true);
  });

  it('never cuts a surrogate pair in half when truncating a non-safe name', () => {
    const name = exposedName('s', '😀'.repeat(40), { providerSafe: false, maxLength: 20 });
    expect(name.length).toBeLessThanOrEqual(20);
    expect(wellFormed(name)).toBe(true);
    expect(name).toMatch(HASHED);
  });

  it('gives an empty formatted name a hashed one', () => {
    const name = exposedName('s', '', { format: () => '' });
    expect(name).toMatch(/^_[0-9a-f]{8}$/);
  });

  it.each([
    [{ separator: '' }, 'separator'],
    [{ separator: ':' }, 'providerSafe'],
    [{ prefix: 'mcp.' }, 'providerSafe'],
    [{ providerSafe: false, separator: '\n' }, 'control'],
    [{ maxLength: 65 }, 'maxLength'],
    [{ maxLength: 9 }, 'maxLength'],
    [{ maxLength: 20.5 }, 'maxLength'],
    [{ format: 'x' as unknown as () => string }, 'format'],
  ])('refuses options %o (INVALID_ARGUMENT)', (options, word) => {
    const error = catchError(() => exposedName('s', 't', options));
    expect(error).toBeInstanceOf(McpHostError);
    expect((error as McpHostError).code).toBe('INVALID_ARGUMENT');
    expect((error as McpHostError).message).toContain(word);
  });

  it('refuses a server key that cannot be a namespace', () => {
    for (const server of ['', 'a__b', 'a_'])
      expect((catchError(() => exposedName(server, 't')) as McpHostError).code).toBe(
        'INVALID_ARGUMENT',
      );
    const noRoom = { prefix: 'p'.repeat(50) };
    expect((catchError(() => exposedName('x'.repeat(60), 't', noRoom)) as McpHostError).code).toBe(
      'INVALID_ARGUMENT',
    );
  });
});

describe('assignNames: collisions', () => {
  it('a lone sanitised name keeps its plain form', () => {
    const { names, collisions } = assign('s', ['a.b']);
    expect([...names.keys()]).toEqual(['mcp__s__a_b']);
    expect(collisions).toEqual([]);
  });

  it('the one pair that needed no change keeps the plain name; the others get a hash', () => {
    const result = assign('s', ['a.b', 'a_b', 'a b']);
    expect(result.exposed('s', 'a_b')).toBe('mcp__s__a_b');
    expect(result.exposed('s', 'a.b')).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/);
    expect(result.exposed('s', 'a b')).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/);
    expect(result.exposed('s', 'a b')).not.toBe(result.exposed('s', 'a.b'));
    expect(result.collisions).toEqual([
      {
        name: 'mcp__s__a_b',
        pairs: [
          { server: 's', tool: 'a b', exposed: result.exposed('s', 'a b') },
          { server: 's', tool: 'a.b', exposed: result.exposed('s', 'a.b') },
          { server: 's', tool: 'a_b', exposed: 'mcp__s__a_b' },
        ],
      },
    ]);
  });

  it('when no pair of a clash is clean, every one gets a hash (none is preferred)', () => {
    const result = assign('s', ['a.b', 'a b']);
    expect(result.exposed('s', 'a.b')).toMatch(HASHED);
    expect(result.exposed('s', 'a b')).toMatch(HASHED);
    expect(result.collisions).toHaveLength(1);
  });

  it('a hashed name depends only on its own pair', () => {
    const withTwo = assign('s', ['a.b', 'a_b']).exposed('s', 'a.b');
    const withThree = assign('s', ['a.b', 'a_b', 'a b', 'a-b']).exposed('s', 'a.b');
    expect(withThree).toBe(withTwo);
  });

  it('case-only differences are distinct names', () => {
    const result = assign('s', ['Read', 'read', 'READ']);
    expect([...result.names.keys()].sort()).toEqual([
      'mcp__s__READ',
      'mcp__s__Read',
      'mcp__s__read',
    ]);
    expect(result.collisions).toEqual([]);
  });

  it('the separator inside a tool name is harmless: the server is always whole', () => {
    const result = assignNames([
      { server: 'a', tool: 'b__c' },
      { server: 'b', tool: 'c' },
      { server: 'a', tool: '__' },
    ]);
    expect(result.exposed('a', 'b__c')).toBe('mcp__a__b__c');
    expect(result.exposed('b', 'c')).toBe('mcp__b__c');
    expect(result.exposed('a', '__')).toBe('mcp__a____');
    expect(result.collisions).toEqual([]);
  });

  it('a tool literally named like another pair’s hashed name keeps it; the hashed one moves', () => {
    const wanted = exposedName('s', 'a.b'); // mcp__s__a_b
    expect(wanted).toBe('mcp__s__a_b');
    const firstHash = `a_b_${hash8(JSON.stringify(['s', 'a.b']), 0)}`;
    const result = assign('s', ['a.b', 'a_b', firstHash]);
    expect(result.exposed('s', firstHash)).toBe(`mcp__s__${firstHash}`);
    const moved = result.exposed('s', 'a.b')!;
    expect(moved).toBe(`mcp__s__a_b_${hash8(JSON.stringify(['s', 'a.b']), 1)}`);
    expect(result.names.size).toBe(3);
    expect(result.collisions.map((c) => c.name)).toEqual(['mcp__s__a_b', `mcp__s__${firstHash}`]);
  });

  it('over-long names that share their first 64 characters stay distinct, without a clash', () => {
    const base = 'y'.repeat(80);
    const result = assign('s', [`${base}1`, `${base}2`, `${base}3`]);
    const names = [...result.names.keys()];
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).toHaveLength(64);
    expect(result.collisions).toEqual([]);
  });

  it('with a format that ignores the server, clean clashes across servers all get a hash', () => {
    const result = assignNames(
      [
        { server: 'a', tool: 'search' },
        { server: 'b', tool: 'search' },
        { server: 'b', tool: 'fetch' },
      ],
      { format: (_server, tool) => tool },
    );
    expect(result.exposed('b', 'fetch')).toBe('fetch');
    expect(result.exposed('a', 'search')).toMatch(/^search_[0-9a-f]{8}$/);
    expect(result.exposed('b', 'search')).toMatch(/^search_[0-9a-f]{8}$/);
    expect(result.collisions[0]?.pairs.map((p) => p.server)).toEqual(['a', 'b']);
  });

  it('duplicate pairs and input order do not matter', () => {
    const pairs = [
      { server: 'b', tool: 'x y' },
      { server: 'a', tool: 'x' },
      { server: 'b', tool: 'x_y' },
      { server: 'a', tool: 'x' },
    ];
    const forward = assignNames(pairs);
    const backward = assignNames([...pairs].reverse());
    expect(entries(backward)).toEqual(entries(forward));
    expect(forward.names.size).toBe(3);
    expect([...forward.names.values()].map((r) => r.server)).toEqual(['a', 'b', 'b']);
  });

  it('refuses a pair that is not two strings', () => {
    for (const bad of [null, { server: 's' }, { server: 1, tool: 't' }])
      expect(
        (catchError(() => assignNames([bad as unknown as ToolRef])) as McpHostError).code,
      ).toBe('INVALID_ARGUMENT');
  });
});

describe('server keys', () => {
  it('two keys that sanitise to the same namespace are both reported and both left out', () => {
    const result = assignNames([
      { server: 'my.srv', tool: 't' },
      { server: 'my_srv', tool: 'u' },
      { server: 'other', tool: 't' },
    ]);
    expect([...result.names.keys()]).toEqual(['mcp__other__t']);
    expect(result.serverProblems).toEqual([
      expect.objectContaining({ server: 'my.srv', reason: 'same-as-another', others: ['my_srv'] }),
      expect.objectContaining({ server: 'my_srv', reason: 'same-as-another', others: ['my.srv'] }),
    ]);
  });

  it.each([
    ['', 'empty'],
    ['\u0301', 'empty'],
    ['a__b', 'separator'],
    ['a_', 'separator'],
    ['a._b', 'separator'],
  ])('%j: %s', (server, reason) => {
    expect(serverKeyProblems([server])).toEqual([expect.objectContaining({ server, reason })]);
    expect(assignNames([{ server, tool: 't' }]).names.size).toBe(0);
  });

  it('accepts the longest key that leaves room for a hashed tool name', () => {
    expect(serverKeyProblems(['s'.repeat(47), 'ok', '_lead'])).toEqual([]);
    expect(exposedName('s'.repeat(47), 't')).toBe(`mcp__${'s'.repeat(47)}__t`);
  });

  it('shortens a longer key to its start and a hash of the whole key: valid, unique names', () => {
    const keys = ['s'.repeat(48), 'k'.repeat(70), `${'k'.repeat(69)}j`, `${'x'.repeat(200)}.é`];
    expect(serverKeyProblems(keys)).toEqual([]);
    const tools = ['read', 'write', 'a_tool_name_long_enough_to_need_its_own_hash_'.repeat(2)];
    const result = assignNames(keys.flatMap((server) => tools.map((tool) => ({ server, tool }))));
    expect(result.names.size).toBe(keys.length * tools.length);
    expect(result.collisions).toEqual([]);
    for (const [name, ref] of result.names) {
      expect(isProviderSafeName(name)).toBe(true);
      expect(result.exposed(ref.server, ref.tool)).toBe(name);
    }
    // The namespace: 15 characters of the key, `_`, 8 hex digits; short tool names kept whole.
    expect(result.exposed('k'.repeat(70), 'read')).toMatch(/^mcp__k{15}_[0-9a-f]{8}__read$/);
    expect(result.exposed('k'.repeat(70), 'read')).not.toBe(
      result.exposed(`${'k'.repeat(69)}j`, 'read'),
    );
    // Deterministic: the key alone decides, whatever else is named.
    expect(exposedName('k'.repeat(70), 'read')).toBe(result.exposed('k'.repeat(70), 'read'));
  });

  it('never lets a shortened key end in part of the separator', () => {
    const server = `${'a'.repeat(14)}_${'b'.repeat(60)}`;
    expect(serverKeyProblems([server])).toEqual([]);
    expect(exposedName(server, 't')).toMatch(/^mcp__a{14}_[0-9a-f]{8}__t$/);
    // With the separator `x_`, a cut ending in `x` is cut further before `_` and the hash.
    const ending = `${'a'.repeat(14)}x${'b'.repeat(60)}`;
    expect(exposedName(ending, 't', { separator: 'x_' })).toMatch(/^mcpx_a{14}_[0-9a-f]{8}x_t$/);
  });

  it('is too long only when the prefix leaves no room even for a hash', () => {
    const options = { prefix: 'p'.repeat(46) };
    expect(serverKeyProblems(['s'.repeat(4)], options)).toEqual([]);
    expect(serverKeyProblems(['s'.repeat(5)], options)).toEqual([
      expect.objectContaining({ reason: 'too-long' }),
    ]);
    expect(assignNames([{ server: 's'.repeat(5), tool: 't' }], options).names.size).toBe(0);
  });

  it('with a separator of its own, checks that one', () => {
    expect(serverKeyProblems(['a__b'], { separator: '-' })).toEqual([]);
    expect(serverKeyProblems(['a-b'], { separator: '-' })[0]?.reason).toBe('separator');
  });

  it('a host can check a new key against the existing ones before adding it', () => {
    expect(serverKeyProblems(['git_hub', 'git.hub']).map((p) => p.reason)).toEqual([
      'same-as-another',
      'same-as-another',
    ]);
  });
});

describe('passing names through (passThrough)', () => {
  const through: ToolNamingOptions = { passThrough: true };

  it("exposes one server's tools and prompts under their own names, and maps them back", () => {
    const names = new ToolNames(through);
    names.setServer('conformance', ['test_simple_text', 'json_schema_2020_12_tool']);
    expect(names.exposed('conformance', 'test_simple_text')).toBe('test_simple_text');
    expect(names.resolve('json_schema_2020_12_tool')).toEqual({
      server: 'conformance',
      tool: 'json_schema_2020_12_tool',
    });
    expect(exposedName('fs', 'read_file', { ...through, prefix: 'x', separator: '-' })).toBe(
      'read_file',
    );
  });

  it('still sanitises and bounds a name that is not provider-safe', () => {
    expect(exposedName('fs', 'file.read', through)).toBe('file_read');
    const long = exposedName('fs', 'x'.repeat(100), through);
    expect(long).toHaveLength(64);
    expect(long).toMatch(HASHED);
    expect(exposedName('fs', 'file.read', { ...through, providerSafe: false })).toBe('file.read');
  });

  it('refuses a second server, naming every server, rather than letting names clash', () => {
    const problems = serverKeyProblems(['beta', 'alpha'], through);
    expect(problems).toEqual([
      expect.objectContaining({ server: 'alpha', reason: 'pass-through', others: ['beta'] }),
      expect.objectContaining({ server: 'beta', reason: 'pass-through', others: ['alpha'] }),
    ]);
    expect(problems[0]?.message).toContain('"alpha", "beta"');
    expect(problems[0]?.message).toContain('naming.passThrough');
    expect(serverKeyProblems(['alpha'], through)).toEqual([]);
    // Two servers offering the same tool never get names.
    const result = assignNames(
      [
        { server: 'alpha', tool: 'read' },
        { server: 'beta', tool: 'read' },
      ],
      through,
    );
    expect(result.names.size).toBe(0);
  });

  it('refuses passThrough with a format, or one that is not a boolean', () => {
    const both = catchError(() =>
      exposedName('fs', 'x', { passThrough: true, format: (_s: string, t: string) => t }),
    );
    expect(both).toBeInstanceOf(McpHostError);
    expect((both as McpHostError).code).toBe('INVALID_ARGUMENT');
    const notBoolean = catchError(() =>
      exposedName('fs', 'x', { passThrough: 'yes' as unknown as boolean }),
    );
    expect((notBoolean as McpHostError).code).toBe('INVALID_ARGUMENT');
  });
});

describe('opting out of provider-safe names', () => {
  const seedStyle: ToolNamingOptions = { providerSafe: false, prefix: 'mcp', separator: ':' };

  it('keeps unicode and punctuation, removes control characters, keeps names unique', () => {
    const result = assign(
      'fs',
      ['read file', 'read\tfile', 'read\u2028file', 'données', ''],
      seedStyle,
    );
    expect(result.exposed('fs', 'read file')).toBe('mcp:fs:read file');
    expect(result.exposed('fs', 'données')).toBe('mcp:fs:données');
    expect(result.exposed('fs', '')).toBe('mcp:fs:');
    const tab = result.exposed('fs', 'read\tfile')!;
    const separator = result.exposed('fs', 'read\u2028file')!;
    expect(tab).toMatch(/^mcp:fs:read_file_[0-9a-f]{8}$/);
    expect(separator).toMatch(/^mcp:fs:read_file_[0-9a-f]{8}$/);
    expect(tab).not.toBe(separator);
    for (const name of result.names.keys()) expect(name).not.toMatch(/[\p{Cc}\u2028]/u);
  });

  it('is opt-in per instance', () => {
    const names = new ToolNames(seedStyle);
    names.assign([{ server: 'filesystem', tool: 'read_file' }]);
    expect(names.resolve('mcp:filesystem:read_file')).toEqual({
      server: 'filesystem',
      tool: 'read_file',
    });
    expect(new ToolNames().exposedName('filesystem', 'read_file')).toBe(
      'mcp__filesystem__read_file',
    );
  });

  it('bounds the length by maxLength (default 64) there too', () => {
    const name = exposedName('fs', 'é'.repeat(200), seedStyle);
    expect(name).toHaveLength(64);
    expect(name).toMatch(HASHED);
    expect(exposedName('fs', 'é'.repeat(200), { ...seedStyle, maxLength: 300 })).toHaveLength(207);
  });
});

describe('ToolNames', () => {
  it('maps both ways and follows per-server updates', () => {
    const names = new ToolNames();
    names.setServer('fs', ['read_file', 'write.file']);
    names.setServer('github', ['create_issue']);
    expect(names.exposed('fs', 'write.file')).toBe('mcp__fs__write_file');
    expect(names.resolve('mcp__github__create_issue')).toEqual({
      server: 'github',
      tool: 'create_issue',
    });
    expect(names.resolve('mcp__nope__x')).toBeUndefined();
    expect(names.exposed('fs', 'nope')).toBeUndefined();

    // A new clash inside fs renames only the pair that is not clean.
    const after = names.setServer('fs', ['read_file', 'write.file', 'write_file']);
    expect(after.exposed('fs', 'write_file')).toBe('mcp__fs__write_file');
    expect(after.exposed('fs', 'write.file')).toMatch(HASHED);
    expect(names.exposed('github', 'create_issue')).toBe('mcp__github__create_issue');

    names.deleteServer('github');
    expect(names.resolve('mcp__github__create_issue')).toBeUndefined();
    expect(names.assignment.names.size).toBe(3);
  });

  it('keeps its state when given a bad pair', () => {
    const names = new ToolNames();
    names.assign([{ server: 's', tool: 't' }]);
    expect(() => names.setServer('s', [1 as unknown as string])).toThrow(McpHostError);
    expect(() => names.assign([null as unknown as ToolRef])).toThrow(McpHostError);
    expect(names.exposed('s', 't')).toBe('mcp__s__t');
  });

  it('names prompts with the same scheme (a second instance)', () => {
    const prompts = new ToolNames();
    prompts.setServer('everything', ['simple-prompt', 'args prompt']);
    expect(prompts.exposed('everything', 'simple-prompt')).toBe('mcp__everything__simple-prompt');
    expect(prompts.resolve('mcp__everything__args_prompt')).toEqual({
      server: 'everything',
      tool: 'args prompt',
    });
  });
});

describe('name hash', () => {
  it('is pinned: suffixes must not change between versions (names are persisted by users)', () => {
    expect(hash8('')).toBe(hash32('').toString(16).padStart(8, '0'));
    expect([hash8(''), hash8('a'), hash8('["s","a.b"]'), hash8('["s","a.b"]', 1)]).toEqual([
      'ab3e7c0b',
      '1a80b1b3',
      '401b4eb2',
      'fb1aa68d',
    ]);
  });
});
