import { describe, expect, it } from 'vitest';
import type { Tool } from '../../protocol/types.js';
import type { QuarantinedTool } from '../pins/pin-types.js';
import type { HostServerDefinition } from '../server-definition.js';
import { ServerTools } from './server-tools.js';

const tool = (name: string): Tool => ({ name, inputSchema: { type: 'object' } });
const definition = (extra: Partial<HostServerDefinition> = {}): HostServerDefinition => ({
  name: 's',
  transport: { type: 'stdio', command: 'x' },
  ...extra,
});

describe('ServerTools', () => {
  it('offers a seed until a reviewed listing replaces it, keeping what the pins hold back', () => {
    const tools = new ServerTools(definition(), [tool('seeded')]);
    expect(tools.tools.map((t) => t.name)).toEqual(['seeded']);
    const held = { tool: tool('held'), reason: 'new' } as QuarantinedTool;
    const before = tools.replace({ allowed: [tool('a')], quarantined: [held] }, undefined, 0);
    expect(before.map((t) => t.name)).toEqual(['seeded']);
    expect(tools.tools.map((t) => t.name)).toEqual(['a']);
    expect([...tools.quarantined.keys()]).toEqual(['held']);
    expect(tools.clear()?.map((t) => t.name)).toEqual(['a']);
    expect(tools.clear()).toBeUndefined();
  });

  it("filters by the definition's allow and block globs (block wins)", () => {
    const tools = new ServerTools(
      definition({ tools: { allow: ['read_*'], block: ['read_secret'] } }),
      undefined,
    );
    expect(
      tools.filter([tool('read_a'), tool('read_secret'), tool('write')]).map((t) => t.name),
    ).toEqual(['read_a']);
  });

  it('goes stale after the TTL: the hint, else none with list_changed, else the definition', () => {
    const tools = new ServerTools(definition({ toolsTtlMs: 1_000 }), undefined);
    tools.replace({ allowed: [], quarantined: [] }, undefined, 0);
    expect(tools.isStale(undefined, definition({ toolsTtlMs: 1_000 }), 999)).toBe(false);
    expect(tools.isStale(undefined, definition({ toolsTtlMs: 1_000 }), 1_000)).toBe(true);
    expect(tools.isStale({ tools: { listChanged: true } }, definition(), 10 ** 9)).toBe(false);
    tools.replace({ allowed: [], quarantined: [] }, 50, 0);
    expect(tools.isStale({ tools: { listChanged: true } }, definition(), 50)).toBe(true);
    expect(tools.isStale(undefined, definition({ toolsTtlMs: 0 }), 49)).toBe(false);
  });
});
