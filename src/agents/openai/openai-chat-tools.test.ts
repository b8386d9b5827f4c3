import type { ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
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
import { openaiChatTools } from './openai-chat-tools.js';

function server() {
  return fake('alpha', {
    tools: [
      echoTool(),
      fakeTool('picture', () => ({
        content: [
          { type: 'text', text: 'here it is' },
          { type: 'image', data: PIXEL, mimeType: 'image/png' },
        ],
      })),
      fakeTool('media', () => ({
        content: [
          { type: 'audio', data: WAV, mimeType: 'audio/wav' },
          { type: 'audio', data: WAV, mimeType: 'audio/ogg' },
          {
            type: 'resource',
            resource: { uri: 'file:///docs/report.pdf', mimeType: 'application/pdf', blob: PDF },
          },
          { type: 'resource_link', uri: 'file:///docs/notes.md', name: 'notes' },
        ],
      })),
      failingTool(),
      slowTool(),
    ],
  });
}

const call = (id: string, name: string, args: unknown = {}): ChatCompletionMessageToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

describe('openaiChatTools', () => {
  it('offers the host tools as function tools with their schema and strictness', async () => {
    await using h = await host({ servers: [server().definition] });
    const chat = openaiChatTools(h);
    expect(chat.toolset.provider).toBe('openai-strict');
    expect(chat.tools).toHaveLength(5);
    const [echo, picture] = chat.tools;
    expect(echo).toEqual({
      type: 'function',
      function: {
        name: 'mcp__alpha__echo',
        description: 'echoes',
        parameters: chat.toolset.tools[0]!.inputSchema,
        strict: chat.toolset.tools[0]!.strict,
      },
    });
    expect(echo?.function.parameters).toMatchObject({ type: 'object' });
    // No description: none sent (rather than an empty one).
    expect(picture?.function).not.toHaveProperty('description');
    expect(openaiChatTools(h, { provider: 'openai' }).toolset.provider).toBe('openai');
  });

  it('answers a call with a text tool message', async () => {
    await using h = await host({ servers: [server().definition] });
    const chat = openaiChatTools(h);
    expect(await chat.call(call('c1', 'mcp__alpha__echo', { text: 'hi' }))).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'hi' },
    ]);
  });

  it('sends media in one user message after all the tool messages, in call order', async () => {
    await using h = await host({ servers: [server().definition] });
    const chat = openaiChatTools(h);
    const messages = await chat.callAll([
      call('c1', 'mcp__alpha__picture'),
      call('c2', 'mcp__alpha__echo', { text: 'hi' }),
      call('c3', 'mcp__alpha__media'),
    ]);
    expect(messages.map((m) => m.role)).toEqual(['tool', 'tool', 'tool', 'user']);
    expect(messages[0]).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content:
        "here it is\n\n[an attachment follows in the next user message, under this call's id c1]",
    });
    expect(messages[1]).toEqual({ role: 'tool', tool_call_id: 'c2', content: 'hi' });
    // Audio the API cannot take and links stay notes in the text.
    const media = messages[2]!.content as string;
    expect(media).toContain('[audio audio/ogg');
    expect(media).toContain('[resource notes: file:///docs/notes.md]');
    expect(media).toContain('2 attachments follow');
    expect(media).not.toContain(WAV);
    expect(messages[3]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Attachments of tool call c1 (mcp__alpha__picture):' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL}` } },
        { type: 'text', text: 'Attachments of tool call c3 (mcp__alpha__media):' },
        { type: 'input_audio', input_audio: { data: WAV, format: 'wav' } },
        {
          type: 'file',
          file: { filename: 'report.pdf', file_data: `data:application/pdf;base64,${PDF}` },
        },
      ],
    });
  });

  it('marks failures, refusals and unknown tools as errors in the text', async () => {
    await using h = await host({
      servers: [server().definition],
      permissions: { '*': { block: ['*slow'] } },
    });
    const chat = openaiChatTools(h);
    const results: Array<[string, ModelToolResult]> = [];
    const messages = await openaiChatTools(h, {
      onResult: (result, { id }) => results.push([id, result]),
    }).callAll([
      call('c1', 'mcp__alpha__fails'),
      call('c2', 'mcp__alpha__slow'),
      { id: 'c3', type: 'function', function: { name: 'mcp__alpha__echo', arguments: '{"te' } },
      { id: 'c4', type: 'custom', custom: { name: 'grammar', input: 'x' } },
    ]);
    expect(messages).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'Error: no such city' },
      { role: 'tool', tool_call_id: 'c2', content: expect.stringMatching(/^Error: .*slow/) },
      { role: 'tool', tool_call_id: 'c3', content: expect.stringMatching(/^Error: .*not a JSON/) },
    ]);
    // Seen as each call settles (in any order), with the host's error where there was one.
    const seen = results.map(([id, r]) => [id, r.isError, r.error?.code]);
    expect(seen.sort(([a], [b]) => String(a).localeCompare(String(b)))).toEqual([
      ['c1', true, undefined],
      ['c2', true, 'TOOL_NOT_FOUND'],
      ['c3', true, 'INVALID_ARGUMENT'],
    ]);
    // A custom tool call given to `call` is answered as an error, not left unanswered.
    expect(
      await chat.call({ id: 'c4', type: 'custom', custom: { name: 'grammar', input: 'x' } }),
    ).toEqual([
      { role: 'tool', tool_call_id: 'c4', content: expect.stringMatching(/^Error: .*custom tool/) },
    ]);
    expect(await chat.callAll(undefined)).toEqual([]);
  });

  it('lets the caller see a cut result, and passes its abort signal to the call', async () => {
    const big = fakeTool('big', () => ({ content: [{ type: 'text', text: 'x'.repeat(10_000) }] }));
    await using h = await host({
      servers: [fake('alpha', { tools: [big] }).definition],
      maxResultBytes: 1_000,
    });
    let seen: ModelToolResult | undefined;
    const chat = openaiChatTools(h, { onResult: (result) => (seen = result) });
    const [message] = await chat.call(call('c1', 'mcp__alpha__big'));
    expect(message?.content).toContain('truncated');
    expect(seen?.truncated).toMatchObject({ maxBytes: 1_000 });

    await using h2 = await host({ servers: [server().definition] });
    const controller = new AbortController();
    const pending = openaiChatTools(h2).callAll([call('c1', 'mcp__alpha__slow')], {
      signal: controller.signal,
    });
    controller.abort(new Error('user stopped'));
    await expect(pending).rejects.toThrow();
  });
});
