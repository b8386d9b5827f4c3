import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../jsonrpc/message.js';
import { fake, host } from '../host/host-test-helpers.js';
import { PIXEL } from './agent-test-fixtures.js';
import { createAgentToolset } from './agent-toolset.js';

function server() {
  return fake('alpha', {
    tools: [
      {
        name: 'echo',
        description: 'echoes',
        inputSchema: {
          type: 'object',
          properties: { text: { type: 'string' }, note: { type: 'string' } },
          required: ['text'],
        },
        handler: (args: JsonObject) => ({
          content: [{ type: 'text', text: JSON.stringify(args) }],
        }),
      },
      {
        name: 'picture',
        title: 'Picture',
        inputSchema: { type: 'object' },
        handler: () => ({
          content: [
            { type: 'text', text: 'here it is' },
            { type: 'image', data: PIXEL, mimeType: 'image/png' },
          ],
        }),
      },
      {
        name: 'slow',
        inputSchema: { type: 'object' },
        handler: (_args, context) =>
          new Promise((_resolve, reject) => {
            context.signal.addEventListener('abort', () => reject(new Error('aborted')), {
              once: true,
            });
          }),
      },
    ],
  });
}

describe('AgentToolset', () => {
  it('offers the host tools under their exposed names, and runs calls through the host', async () => {
    await using h = await host({ servers: [server().definition] });
    const set = createAgentToolset(h, { provider: 'anthropic' });
    expect(set.tools.map((t) => t.name)).toEqual([
      'mcp__alpha__echo',
      'mcp__alpha__picture',
      'mcp__alpha__slow',
    ]);
    expect(set.get('mcp__alpha__picture')?.description).toBe('Picture');
    const echoed = await set.call('mcp__alpha__echo', '{"text":"hi"}');
    expect(echoed).toMatchObject({ isError: false, text: '{"text":"hi"}' });
    const picture = await set.call('mcp__alpha__picture', {});
    expect(picture.parts).toEqual([
      { type: 'text', text: 'here it is' },
      { type: 'image', mimeType: 'image/png', data: PIXEL },
    ]);
    expect(h.metrics().servers.alpha?.calls).toBe(2);
  });

  it('turns what the model got wrong, and refusals, into error results it can read', async () => {
    await using h = await host({
      servers: [server().definition],
      permissions: { reader: { allow: ['*echo'] }, '*': { block: ['*'] } },
    });
    const all = createAgentToolset(h, { provider: 'openai' });
    expect(all.tools).toEqual([]);
    const reader = createAgentToolset(h, { provider: 'openai', context: { agent: 'reader' } });
    expect(reader.tools.map((t) => t.name)).toEqual(['mcp__alpha__echo']);

    const unknown = await reader.call('mcp__alpha__picture', {});
    expect(unknown).toMatchObject({ isError: true, error: { code: 'TOOL_NOT_FOUND' } });
    expect(unknown.text).toContain("no tool is named 'mcp__alpha__picture'");
    const junk = await reader.call('mcp__alpha__echo', '{"text":');
    expect(junk).toMatchObject({ isError: true, error: { code: 'INVALID_ARGUMENT' } });
    const notObject = await reader.call('mcp__alpha__echo', '[1]');
    expect(notObject.error?.code).toBe('INVALID_ARGUMENT');
  });

  it('throws only when the caller aborts the call', async () => {
    await using h = await host({ servers: [server().definition] });
    const set = createAgentToolset(h, { provider: 'anthropic' });
    const controller = new AbortController();
    const call = set.call('mcp__alpha__slow', {}, { signal: controller.signal });
    controller.abort(new Error('user stopped'));
    await expect(call).rejects.toThrow();
  });

  it('applies its own filter after the host', async () => {
    await using h = await host({ servers: [server().definition] });
    const set = createAgentToolset(h, {
      provider: 'gemini',
      filter: (t) => t.originalName !== 'slow',
    });
    expect(set.tools.map((t) => t.tool.originalName)).toEqual(['echo', 'picture']);
    expect(await set.call('mcp__alpha__slow', {})).toMatchObject({ isError: true });
  });
});
