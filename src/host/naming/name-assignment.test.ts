import { describe, expect, it } from 'vitest';
import { candidateServers, exposedName } from './name-assignment.js';

describe('candidateServers', () => {
  const servers = ['ok', 'ok_two', 'a.b', 'very-long-server-name-'.repeat(4)];

  it('finds the one server whose head starts the name, hashed names included', () => {
    expect(candidateServers('mcp__ok__echo', servers)).toEqual(['ok']);
    expect(candidateServers('mcp__ok_two__echo', servers)).toEqual(['ok_two']);
    expect(candidateServers('mcp__a_b__x', servers)).toEqual(['a.b']);
    const long = servers[3]!;
    expect(candidateServers(exposedName(long, 't'.repeat(80)), servers)).toEqual([long]);
    expect(candidateServers('mcp__nope__echo', servers)).toEqual([]);
    expect(candidateServers('echo', servers)).toEqual([]);
  });

  it('follows the naming options; with format every server is a candidate', () => {
    const naming = { prefix: '', separator: '--' };
    expect(candidateServers('ok--echo', servers, naming)).toEqual(['ok']);
    expect(candidateServers('mcp__ok__echo', servers, naming)).toEqual([]);
    expect(candidateServers('x', servers, { format: (s, t) => `${t}@${s}` })).toEqual(servers);
  });
});
