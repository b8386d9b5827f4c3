import { RunContext } from '@openai/agents';
import { describe, expect, it, vi } from 'vitest';
import { fake, host } from '../../host/host-test-helpers.js';
import { PIXEL } from '../agent-test-fixtures.js';
import type { JsonObject } from '../../jsonrpc/message.js';
import { createAgentToolset } from '../agent-toolset.js';
import type * as Normaliser from '../schemas/normalise-tool-schema.js';
import { openaiAgentsTools } from './openai-agents-tools.js';

// Schemas as constants, not literals after `inputSchema:`: the seeded corpus of
// schema-shape.test.ts is collected from such literals in tests and stays as it was.
const anyObject = { type: 'object' } as const;
const textObject = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
};
const closedTextObject = { ...textObject, additionalProperties: false };
const closedTypelessInner = {
  type: 'object',
  properties: { inner: { properties: { text: { type: 'string' } } } },
  required: ['inner'],
  additionalProperties: false,
};

// The normaliser's strict rules are not this adapter's (the real one repairs what the SDK would
// refuse): here a schema whose root says `additionalProperties: false` is passed on as the server
// sent it and called strict, so both of the adapter's strict paths can be driven.
vi.mock('../schemas/normalise-tool-schema.js', async (importOriginal) => {
  const original = await importOriginal<typeof Normaliser>();
  return {
    ...original,
    normaliseToolSchema: (...args: Parameters<typeof original.normaliseToolSchema>) => {
      const normalised = original.normaliseToolSchema(...args);
      const [, schema, provider] = args;
      return provider === 'openai-strict' && schema.additionalProperties === false
        ? { ...normalised, schema: structuredClone(schema), strict: true }
        : normalised;
    },
  };
});

function server() {
  return fake('alpha', {
    tools: [
      {
        name: 'echo-text',
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
            { type: 'audio', data: 'T2dnUw==', mimeType: 'audio/ogg' },
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

const context = new RunContext();

describe('openaiAgentsTools', () => {
  it('offers each host tool under its exposed name, with its schema and the strictness the core chose', async () => {
    await using h = await host({ servers: [server().definition] });
    const tools = openaiAgentsTools(h);
    const core = createAgentToolset(h, { provider: 'openai-strict' });
    expect(tools.map((t) => [t.type, t.name, t.description])).toEqual([
      ['function', 'mcp__alpha__echo-text', 'echoes'],
      ['function', 'mcp__alpha__media', ''],
      ['function', 'mcp__alpha__broken', ''],
      ['function', 'mcp__alpha__slow', ''],
    ]);
    for (const t of tools) expect(t.strict).toBe(core.get(t.name)?.strict);
    expect(tools[0]?.parameters).toEqual(core.get('mcp__alpha__echo-text')?.inputSchema);
    // `openai` offers every tool non-strict.
    expect(openaiAgentsTools(h, { provider: 'openai' }).map((t) => t.strict)).toEqual([
      false,
      false,
      false,
      false,
    ]);

    expect(await tools[0]!.invoke(context, '{"text":"hi"}')).toBe('hi');
    expect(h.metrics().servers.alpha?.calls).toBe(1);
  });

  it('returns media as the SDK’s image and file items, audio and links as text', async () => {
    await using h = await host({ servers: [server().definition] });
    const media = openaiAgentsTools(h).find((t) => t.name === 'mcp__alpha__media')!;
    expect(await media.invoke(context, '{}')).toEqual([
      { type: 'text', text: 'here' },
      { type: 'image', image: { data: PIXEL, mediaType: 'image/png' } },
      { type: 'text', text: '[audio audio/ogg, 4 bytes]' },
      {
        type: 'file',
        file: { data: 'JVBERg==', mediaType: 'application/pdf', filename: 'report.pdf' },
      },
      { type: 'text', text: '[resource doc one: demo://doc/1]' },
    ]);
  });

  it('returns a failed or refused call as error text the model can read', async () => {
    await using h = await host({
      servers: [server().definition],
      approve: (request) => request.tool.originalName !== 'echo-text',
    });
    const tools = openaiAgentsTools(h);
    const byName = (name: string) => tools.find((t) => t.name === `mcp__alpha__${name}`)!;
    expect(await byName('broken').invoke(context, '{}')).toBe('Error: it broke');
    const refused = await byName('echo-text').invoke(context, '{"text":"x"}');
    expect(refused).toMatch(/^Error: .*approval hook/);
  });

  it('offers a strict tool strict, and a schema the SDK refuses in strict mode non-strict', async () => {
    const strictServer = fake('beta', {
      tools: [
        {
          name: 'ready',
          inputSchema: closedTextObject,
          handler: (args: JsonObject) => ({ content: [{ type: 'text', text: String(args.text) }] }),
        },
        {
          name: 'open',
          // The SDK refuses a nested object schema without a type in strict mode.
          inputSchema: closedTypelessInner,
          handler: () => ({ content: [{ type: 'text', text: 'opened' }] }),
        },
      ],
    });
    await using h = await host({ servers: [strictServer.definition] });
    const tools = openaiAgentsTools(h);
    expect(tools.map((t) => [t.name, t.strict])).toEqual([
      ['mcp__beta__ready', true],
      ['mcp__beta__open', false],
    ]);
    expect(await tools[0]!.invoke(context, '{"text":"strict"}')).toBe('strict');
    expect(await tools[1]!.invoke(context, '{"inner":{}}')).toBe('opened');
    expect(openaiAgentsTools(h, { provider: 'openai' }).map((t) => t.strict)).toEqual([
      false,
      false,
    ]);
  });

  it('passes the run’s abort signal to the call, and rethrows its reason', async () => {
    await using h = await host({ servers: [server().definition] });
    const slow = openaiAgentsTools(h).find((t) => t.name === 'mcp__alpha__slow')!;
    const controller = new AbortController();
    const reason = new Error('user stopped');
    const pending = slow.invoke(context, '{}', { signal: controller.signal });
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});
