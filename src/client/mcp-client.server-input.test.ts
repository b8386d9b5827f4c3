import { describe, expect, it } from 'vitest';
import type { JsonRpcError } from '../errors/json-rpc-error.js';
import { connect } from '../../test/helpers/mcp-client-harness.js';

describe('server input', () => {
  const askingTool = (method: string, params: Record<string, unknown>) => ({
    name: 'ask',
    inputSchema: { type: 'object' },
    handler: async (
      _args: unknown,
      context: { request: (m: string, p?: Record<string, unknown>) => Promise<unknown> },
    ) => {
      try {
        const answer = await context.request(method, params);
        return { content: [{ type: 'text' as const, text: JSON.stringify(answer) }] };
      } catch (error) {
        const e = error as JsonRpcError;
        return { content: [{ type: 'text' as const, text: `error ${e.code}` }], isError: true };
      }
    },
  });

  it('legacy: sampling reaches the handler; capabilities advertise only what has a handler', async () => {
    await using h = await connect(
      {
        era: 'legacy',
        tools: [askingTool('sampling/createMessage', { messages: [], maxTokens: 5 })],
      },
      {
        handlers: {
          sampling: () =>
            Promise.resolve({
              role: 'assistant',
              content: { type: 'text', text: 'hi' },
              model: 'm',
            }),
        },
      },
    );
    await h.client.connect();
    const init = h.fake.received.find((r) => r.method === 'initialize')!;
    expect(init.params!.capabilities).toEqual({ sampling: {} });
    const result = await h.client.callTool('ask');
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining('"model":"m"') });
  });

  it('legacy: an unadvertised request gets -32601 and runs no handler; an undeclared elicitation mode gets -32602', async () => {
    let called = 0;
    const form = () => {
      called++;
      return Promise.resolve({ action: 'accept' as const, content: {} });
    };
    await using h = await connect(
      {
        era: 'legacy',
        tools: [
          askingTool('sampling/createMessage', { messages: [], maxTokens: 5 }),
          {
            ...askingTool('elicitation/create', {
              mode: 'url',
              message: 'go',
              url: 'https://x.test',
              elicitationId: '1',
            }),
            name: 'url',
          },
        ],
      },
      { handlers: { elicitation: { form } } },
    );
    await h.client.connect();
    expect((await h.client.callTool('ask')).content[0]).toMatchObject({ text: 'error -32601' });
    expect((await h.client.callTool('url')).content[0]).toMatchObject({ text: 'error -32602' });
    expect(called).toBe(0);
  });

  it('modern: input_required is answered by the same handlers and retried with requestState echoed exactly', async () => {
    const state = 'opaque ✓ {"x":1} ==';
    await using h = await connect(
      {
        era: 'modern',
        tools: [
          {
            name: 'login',
            inputSchema: { type: 'object' },
            handler: (_args, context) =>
              context.inputResponses === undefined
                ? {
                    resultType: 'input_required' as const,
                    requestState: state,
                    inputRequests: {
                      who: {
                        method: 'elicitation/create',
                        params: {
                          mode: 'form',
                          message: 'Name?',
                          requestedSchema: { type: 'object' },
                        },
                      },
                    },
                  }
                : {
                    content: [
                      {
                        type: 'text' as const,
                        text: `hello ${JSON.stringify(context.inputResponses)} ${context.requestState}`,
                      },
                    ],
                  },
          },
        ],
      },
      {
        handlers: {
          elicitation: {
            form: () => Promise.resolve({ action: 'accept', content: { name: 'ada' } }),
          },
        },
      },
    );
    await h.client.connect();
    const result = await h.client.callTool('login');
    expect(result.content[0]).toMatchObject({
      text: `hello {"who":{"action":"accept","content":{"name":"ada"}}} ${state}`,
    });
    const calls = h.fake.received.filter((r) => r.method === 'tools/call');
    expect(calls).toHaveLength(2);
    expect(calls[0]!.params!.requestState).toBeUndefined();
    expect(calls[1]!.params!.requestState).toBe(state);
  });

  it('modern: an endless input_required loop stops at the round cap with a typed error', async () => {
    await using h = await connect(
      {
        era: 'modern',
        tools: [
          {
            name: 'loop',
            inputSchema: { type: 'object' },
            handler: () => ({ resultType: 'input_required' as const, requestState: 's' }),
          },
        ],
      },
      { maxInputRounds: 3 },
    );
    await h.client.connect();
    await expect(h.client.callTool('loop')).rejects.toMatchObject({
      code: 'INPUT_ROUNDS_EXCEEDED',
    });
    expect(h.fake.received.filter((r) => r.method === 'tools/call')).toHaveLength(4);
  });

  it('modern: an undeclared input request is a protocol violation and never reaches a handler', async () => {
    let asked = 0;
    await using h = await connect(
      {
        era: 'modern',
        tools: [
          {
            name: 't',
            inputSchema: { type: 'object' },
            handler: () => ({
              resultType: 'input_required' as const,
              inputRequests: {
                s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } },
                e: { method: 'elicitation/create', params: { message: 'x', requestedSchema: {} } },
              },
            }),
          },
        ],
      },
      {
        handlers: {
          elicitation: { form: () => (asked++, Promise.resolve({ action: 'decline' as const })) },
        },
      },
    );
    await h.client.connect();
    await expect(h.client.callTool('t')).rejects.toMatchObject({ code: 'PROTOCOL_VIOLATION' });
    expect(asked).toBe(0);
  });
});
