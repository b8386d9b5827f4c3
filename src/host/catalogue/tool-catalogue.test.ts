import { describe, expect, it } from 'vitest';
import type { Tool } from '../../protocol/types.js';
import { ToolCatalogue } from './tool-catalogue.js';

const tools = (...names: string[]): Tool[] =>
  names.map((name) => ({ name, inputSchema: { type: 'object' } }));

describe('ToolCatalogue', () => {
  it('lists servers in their places, whichever answers first', () => {
    const catalogue = new ToolCatalogue();
    for (const server of ['alpha', 'beta', 'gamma']) catalogue.place(server);
    catalogue.setServerTools('gamma', tools('c'));
    catalogue.setServerTools('alpha', tools('a'));
    catalogue.setServerTools('beta', tools('b'));
    catalogue.setServerTools('late', tools('z'));
    catalogue.setServerTools('alpha', tools('a', 'a2'));
    expect(catalogue.list().map((tool) => tool.name)).toEqual([
      'mcp__alpha__a',
      'mcp__alpha__a2',
      'mcp__beta__b',
      'mcp__gamma__c',
      'mcp__late__z',
    ]);
  });
});
