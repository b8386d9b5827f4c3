/**
 * Tool naming against 1,000 generated hostile (server, tool) pairs: unicode, punctuation, control
 * and bidirectional characters, lone surrogates, over-long names.
 */
import { describe, expect, it } from 'vitest';
import { assignNames, exposedName } from './name-assignment.js';
import { toProviderSafe, type ToolRef } from './namer.js';
import { seededRandom as random } from '../../../test/helpers/seeded-random.js';
import { entries, shuffled, wellFormed } from './tool-names-test-helpers.js';

describe('1,000 hostile names across several servers', () => {
  const servers = ['github', 'fs', 'my-server', 'Srv2', 'a.b', 'memory', 'x'];
  const pieces = [
    'read',
    'Read',
    'READ',
    'file',
    '.',
    ' ',
    '__',
    '_',
    '-',
    '/',
    ':',
    'é',
    'ü',
    'ß',
    '中文',
    'Ελληνικά',
    '🔥',
    '👩‍💻',
    '\u0301',
    '\n',
    '\t',
    '\u202e',
    '\u0000',
    '\ud83d',
    '\ude00',
    '1',
    '42',
    'mcp',
    'x'.repeat(70),
    '',
  ];

  function generate(): ToolRef[] {
    const next = random(20261122);
    const seen = new Set<string>();
    const pairs: ToolRef[] = [];
    const add = (server: string, tool: string) => {
      const key = JSON.stringify([server, tool]);
      if (seen.has(key)) return;
      seen.add(key);
      pairs.push({ server, tool });
    };
    // Hand-picked hostile cases on every server.
    for (const server of servers) {
      for (const tool of [
        '',
        '...',
        ' ',
        '__',
        'read file',
        'read.file',
        'read_file',
        'read-file',
        'Read_File',
        '1read',
        '🔥',
        '🔥🔥',
        'z'.repeat(500),
        `${'z'.repeat(499)}!`,
        'café',
        'cafe',
        'cafe\u0301',
      ])
        add(server, tool);
    }
    while (pairs.length < 1000) {
      const server = servers[Math.floor(next() * servers.length)]!;
      let tool = '';
      const count = 1 + Math.floor(next() * 6);
      for (let i = 0; i < count; i++) tool += pieces[Math.floor(next() * pieces.length)]!;
      add(server, tool);
    }
    return pairs;
  }

  const pairs = generate();
  const result = assignNames(pairs);

  it('generates 1,000 distinct pairs, with clashes among them', () => {
    expect(pairs).toHaveLength(1000);
    expect(result.serverProblems).toEqual([]);
    expect(result.collisions.length).toBeGreaterThan(50);
  });

  it('every pair gets a valid, unique name that maps back to it', () => {
    expect(result.names.size).toBe(1000);
    for (const { server, tool } of pairs) {
      const name = result.exposed(server, tool);
      expect(name).toBeDefined();
      expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(result.names.get(name!)).toEqual({ server, tool });
    }
  });

  it('every name starts with its own server namespace', () => {
    for (const [name, { server }] of result.names)
      expect(name.startsWith(`mcp__${toProviderSafe(server)}__`)).toBe(true);
  });

  it('gives the same names for any input order', () => {
    const next = random(7);
    for (let round = 0; round < 5; round++)
      expect(entries(assignNames(shuffled(pairs, next)))).toEqual(entries(result));
  });

  it('adding or removing a server never renames another server’s tools', () => {
    const without = assignNames(pairs.filter((pair) => pair.server !== 'memory'));
    for (const [name, ref] of without.names)
      expect(result.exposed(ref.server, ref.tool)).toBe(name);
  });

  it('a pair that clashes with nothing has the name exposedName gives it', () => {
    const clashing = new Set(
      result.collisions.flatMap((c) => c.pairs.map((p) => JSON.stringify([p.server, p.tool]))),
    );
    let checked = 0;
    for (const { server, tool } of pairs) {
      if (clashing.has(JSON.stringify([server, tool]))) continue;
      expect(result.exposed(server, tool)).toBe(exposedName(server, tool));
      checked++;
    }
    expect(checked).toBeGreaterThan(500);
  });

  it('every clash is reported with each pair’s final name', () => {
    for (const collision of result.collisions) {
      expect(collision.pairs.length).toBeGreaterThan(1);
      for (const pair of collision.pairs)
        expect(result.exposed(pair.server, pair.tool)).toBe(pair.exposed);
      expect(
        collision.pairs.filter((p) => p.exposed === collision.name).length,
      ).toBeLessThanOrEqual(1);
    }
  });

  it('holds in the opt-out mode too: non-empty, unique, no control characters, round trip', () => {
    const loose = assignNames(pairs, {
      providerSafe: false,
      format: (server, tool) => `mcp:${server}:${tool}`,
    });
    expect(loose.names.size).toBe(1000);
    for (const [name, ref] of loose.names) {
      expect(name.length).toBeGreaterThan(0);
      expect(name.length).toBeLessThanOrEqual(64);
      expect(name).not.toMatch(/[\p{Cc}\u202e]/u);
      expect(wellFormed(name)).toBe(true);
      expect(loose.exposed(ref.server, ref.tool)).toBe(name);
    }
  });
});
