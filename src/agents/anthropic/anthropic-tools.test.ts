import type { ToolUseBlock } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { fake, host } from '../../host/host-test-helpers.js';
import {
  PIXEL,
  PDF,
  WAV,
  echoTool,
  failingTool,
  fakeTool,
  slowTool,
} from '../agent-test-fixtures.js';
import type { ModelToolResult } from '../model-result.js';
import { anthropicTools } from './anthropic-tools.js';

function server() {
  return fake('alpha', {
    tools: [
      echoTool(),
      fakeTool('picture', () => ({
        content: [
          { type: 'text', text: 'here it is' },
          { type: 'image', data: PIXEL, mimeType: 'image/png' },
          { type: 'text', text: '' },
          { type: 'image', data: PIXEL, mimeType: 'image/bmp' },
          { type: 'audio', data: WAV, mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///docs/notes.md', name: 'notes' },
          {
            type: 'resource',
            resource: { uri: 'file:///docs/report.pdf', mimeType: 'application/pdf', blob: PDF },
          },
        ],
      })),
      fakeTool('empty', () => ({ content: [] })),
      failingTool(),
      slowTool(),
    ],
  });
}

const use = (id: string, name: string, input: unknown = {}): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
  caller: { type: 'direct' },
});

describe('anthropicTools', () => {
  it('offers the host tools as Messages tools with their input schema', async () => {
    await using h = await host({ servers: [server().definition] });
    const anthropic = anthropicTools(h);
    expect(anthropic.toolset.provider).toBe('anthropic');
    expect(anthropic.tools[0]).toEqual({
      name: 'mcp__alpha__echo',
      description: 'echoes',
      input_schema: anthropic.toolset.tools[0]!.inputSchema,
    });
    expect(anthropic.tools[0]?.input_schema.type).toBe('object');
    expect(anthropic.tools[1]).not.toHaveProperty('description');
    expect(anthropicTools(h, { provider: 'gemini' }).toolset.provider).toBe('gemini');
  });

  it('answers every tool_use of a message, in order, with native blocks for media', async () => {
    await using h = await host({ servers: [server().definition] });
    const anthropic = anthropicTools(h);
    const results = await anthropic.callAll([
      { type: 'text', text: 'let me look', citations: null },
      use('t1', 'mcp__alpha__picture'),
      use('t2', 'mcp__alpha__echo', { text: 'hi' }),
      use('t3', 'mcp__alpha__empty'),
    ]);
    expect(results).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: [
          { type: 'text', text: 'here it is' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } },
          {
            type: 'text',
            // Empty text is left out; what Messages cannot take is a note, never base64.
            text: expect.stringMatching(
              /^\[image image\/bmp, \d+ bytes\]\n\n\[audio audio\/wav, \d+ bytes\]\n\n\[resource notes: file:\/\/\/docs\/notes.md\]$/,
            ),
          },
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: PDF },
            title: 'file:///docs/report.pdf',
          },
        ],
      },
      { type: 'tool_result', tool_use_id: 't2', content: 'hi' },
      { type: 'tool_result', tool_use_id: 't3' },
    ]);
  });

  it('flags failures, refusals and unknown tools with is_error', async () => {
    await using h = await host({
      servers: [server().definition],
      permissions: { '*': { block: ['*slow'] } },
    });
    const seen: Array<[string, ModelToolResult]> = [];
    const anthropic = anthropicTools(h, { onResult: (result, { id }) => seen.push([id, result]) });
    expect(await anthropic.call(use('t1', 'mcp__alpha__fails'))).toEqual({
      type: 'tool_result',
      tool_use_id: 't1',
      content: 'no such city',
      is_error: true,
    });
    expect(await anthropic.call(use('t2', 'mcp__alpha__slow'))).toEqual({
      type: 'tool_result',
      tool_use_id: 't2',
      content: expect.stringMatching(/^Error: .*slow/),
      is_error: true,
    });
    expect(await anthropic.call(use('t3', 'mcp__alpha__echo', 'not an object'))).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/not a JSON object/),
    });
    expect(seen.map(([id, r]) => [id, r.error?.code])).toEqual([
      ['t1', undefined],
      ['t2', 'TOOL_NOT_FOUND'],
      ['t3', 'INVALID_ARGUMENT'],
    ]);
  });

  it('lets the caller see a cut result, and passes its abort signal to the calls', async () => {
    const big = fakeTool('big', () => ({ content: [{ type: 'text', text: 'x'.repeat(10_000) }] }));
    await using h = await host({
      servers: [fake('alpha', { tools: [big] }).definition],
      maxResultBytes: 1_000,
    });
    let seen: ModelToolResult | undefined;
    const cut = await anthropicTools(h, { onResult: (result) => (seen = result) }).call(
      use('t1', 'mcp__alpha__big'),
    );
    expect(cut.content).toContain('truncated');
    expect(seen?.truncated).toMatchObject({ maxBytes: 1_000 });

    await using h2 = await host({ servers: [server().definition] });
    const controller = new AbortController();
    const pending = anthropicTools(h2).callAll([use('t1', 'mcp__alpha__slow')], {
      signal: controller.signal,
    });
    controller.abort(new Error('user stopped'));
    await expect(pending).rejects.toThrow();
  });
});
