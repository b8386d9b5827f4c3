import { ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { fake, host } from '../../host/host-test-helpers.js';
import { PIXEL } from '../agent-test-fixtures.js';
import type { JsonObject } from '../../jsonrpc/message.js';
import type { ModelToolResult } from '../model-result.js';
import { langchainTools } from './langchain-tools.js';

const SOUND = 'T2dnUw==';

// Schemas as constants, not literals after `inputSchema:`: the seeded corpus of
// schema-shape.test.ts is collected from such literals in tests and stays as it was.
const anyObject = { type: 'object' } as const;
const textObject = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
};

function server() {
  return fake('alpha', {
    tools: [
      {
        name: 'echo',
        description: 'echoes',
        inputSchema: textObject,
        handler: (args: JsonObject) => ({ content: [{ type: 'text', text: String(args.text) }] }),
      },
      {
        name: 'media',
        inputSchema: anyObject,
        handler: () => ({
          content: [
            { type: 'text', text: 'here' },
            { type: 'image', data: PIXEL, mimeType: 'image/png' },
            { type: 'audio', data: SOUND, mimeType: 'audio/ogg' },
            {
              type: 'resource',
              resource: {
                uri: 'file:///tmp/report.pdf',
                mimeType: 'application/pdf',
                blob: 'JVBERg==',
              },
            },
            { type: 'resource_link', uri: 'demo://doc/1', name: 'doc one' },
          ],
        }),
      },
      {
        name: 'broken',
        inputSchema: anyObject,
        handler: () => ({ content: [{ type: 'text', text: 'it broke' }], isError: true }),
      },
      {
        name: 'slow',
        inputSchema: anyObject,
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

const call = (name: string, args: JsonObject = {}) => ({
  id: `call-${name}`,
  name,
  args,
  type: 'tool_call' as const,
});

describe('langchainTools', () => {
  it('offers each host tool with its JSON schema, and answers a tool call with content and the result', async () => {
    await using h = await host({ servers: [server().definition] });
    const tools = langchainTools(h);
    expect(tools.map((t) => [t.name, t.description, t.responseFormat])).toEqual([
      ['mcp__alpha__echo', 'echoes', 'content_and_artifact'],
      ['mcp__alpha__media', '', 'content_and_artifact'],
      ['mcp__alpha__broken', '', 'content_and_artifact'],
      ['mcp__alpha__slow', '', 'content_and_artifact'],
    ]);
    expect(tools[0]?.schema).toEqual({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });

    const message: unknown = await tools[0]!.invoke(call('mcp__alpha__echo', { text: 'hi' }));
    expect(message).toBeInstanceOf(ToolMessage);
    expect(message).toMatchObject({
      status: 'success',
      tool_call_id: 'call-mcp__alpha__echo',
      name: 'mcp__alpha__echo',
      content: 'hi',
      artifact: { isError: false, text: 'hi' },
    });
    expect(h.metrics().servers.alpha?.calls).toBe(1);
  });

  it('gives media as base64 data blocks, never as text, and links as text', async () => {
    await using h = await host({ servers: [server().definition] });
    const media = langchainTools(h, { provider: 'anthropic' }).find((t) =>
      t.name.endsWith('media'),
    )!;
    const message = await media.invoke(call('mcp__alpha__media'));
    expect(message.content).toEqual([
      { type: 'text', text: 'here' },
      { type: 'image', source_type: 'base64', mime_type: 'image/png', data: PIXEL },
      { type: 'audio', source_type: 'base64', mime_type: 'audio/ogg', data: SOUND },
      {
        type: 'file',
        source_type: 'base64',
        mime_type: 'application/pdf',
        data: 'JVBERg==',
        metadata: { filename: 'report.pdf' },
      },
      { type: 'text', text: '[resource doc one: demo://doc/1]' },
    ]);
    // OpenAI (the default) takes WAV and MP3 audio only: other audio is described, not sent.
    const openai = langchainTools(h).find((t) => t.name.endsWith('media'))!;
    const described = await openai.invoke(call('mcp__alpha__media'));
    expect(described.content[2]).toEqual({ type: 'text', text: '[audio audio/ogg, 4 bytes]' });
  });

  it('answers a failed or refused call with an error ToolMessage the model can read', async () => {
    await using h = await host({
      servers: [server().definition],
      approve: (request) => request.tool.originalName !== 'echo',
    });
    const tools = langchainTools(h);
    const byName = (suffix: string) => tools.find((t) => t.name.endsWith(suffix))!;

    const failed = await byName('broken').invoke(call('mcp__alpha__broken'));
    expect(failed).toMatchObject({
      status: 'error',
      tool_call_id: 'call-mcp__alpha__broken',
      content: 'it broke',
    });
    expect((failed.artifact as ModelToolResult).isError).toBe(true);

    const refused = await byName('echo').invoke(call('mcp__alpha__echo', { text: 'x' }));
    expect(refused.status).toBe('error');
    expect((refused.artifact as ModelToolResult).error?.code).toBe('TOOL_DENIED');
    expect(refused.content).toMatch(/^Error: .*approval hook/);

    // Invoked with plain arguments (no tool call), a tool returns its content, as LangChain does.
    expect(await byName('broken').invoke({})).toBe('it broke');
  });

  it('passes the run’s abort signal to the call', async () => {
    await using h = await host({ servers: [server().definition] });
    const slow = langchainTools(h).find((t) => t.name.endsWith('slow'))!;
    const controller = new AbortController();
    const pending = slow.invoke(call('mcp__alpha__slow'), { signal: controller.signal });
    controller.abort(new Error('user stopped'));
    await expect(pending).rejects.toThrow();
    // The host let go of the call: the next one runs.
    const echo = langchainTools(h)[0]!;
    expect(await echo.invoke({ text: 'after' })).toBe('after');
  });

  it('leaves out what the filter refuses, and follows the host’s per-agent permissions', async () => {
    await using h = await host({
      servers: [server().definition],
      permissions: { reader: { allow: ['*echo', '*media'] } },
    });
    expect(
      langchainTools(h, {
        context: { agent: 'reader' },
        filter: (t) => t.originalName !== 'media',
      }).map((t) => t.name),
    ).toEqual(['mcp__alpha__echo']);
  });
});
