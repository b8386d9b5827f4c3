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

  describe('modern: deferred input', () => {
    const state = 'state ✓ "q" ==';
    /** Asks for a completion and a name in one round; answers with what it got. */
    const twoQuestions = {
      name: 'login',
      inputSchema: { type: 'object' },
      handler: (
        _args: unknown,
        context: { inputResponses?: Record<string, unknown>; requestState?: string },
      ) =>
        context.inputResponses === undefined
          ? {
              resultType: 'input_required' as const,
              requestState: state,
              inputRequests: {
                s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
                who: {
                  method: 'elicitation/create',
                  params: { mode: 'form', message: 'Name?', requestedSchema: { type: 'object' } },
                },
              },
            }
          : {
              content: [
                {
                  type: 'text' as const,
                  text: `got ${JSON.stringify(context.inputResponses)} ${context.requestState}`,
                },
              ],
            },
    };
    const completion = { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' };

    it('a handler that defers pauses the call with a JSON continuation; a new connection resumes it', async () => {
      let sampled = 0;
      const handlers = {
        sampling: () => (sampled++, Promise.resolve(completion as never)),
        elicitation: { form: (_p: unknown, context: { defer?: () => never }) => context.defer!() },
      };
      let continuation: unknown;
      {
        await using h = await connect({ era: 'modern', tools: [twoQuestions] }, { handlers });
        await h.client.connect();
        const error = await h.client.callTool('login').then(
          () => undefined,
          (e: unknown) => e as { code: string; details: { continuation: unknown } },
        );
        expect(error?.code).toBe('INPUT_DEFERRED');
        continuation = JSON.parse(JSON.stringify(error!.details.continuation));
        expect(continuation).toEqual({
          inputRequests: { who: twoQuestions.handler({}, {}).inputRequests!.who },
          inputResponses: { s: completion },
          requestState: state,
        });
        expect(h.fake.received.filter((r) => r.method === 'tools/call')).toHaveLength(1);
      }
      // Another connection (as another process would open): no handlers, only the answers.
      await using h2 = await connect({ era: 'modern', tools: [twoQuestions] });
      await h2.client.connect();
      const { inputResponses, requestState } = continuation as {
        inputResponses: Record<string, unknown>;
        requestState: string;
      };
      const answer = { action: 'accept', content: { name: 'ada' } };
      const result = await h2.client.callTool('login', undefined, {
        resume: { inputResponses: { ...inputResponses, who: answer }, requestState },
      });
      expect(result.content[0]).toMatchObject({
        text: `got ${JSON.stringify({ s: completion, who: answer })} ${state}`,
      });
      const calls = h2.fake.received.filter((r) => r.method === 'tools/call');
      expect(calls).toHaveLength(1);
      expect(calls[0]!.params!.requestState).toBe(state);
      expect(sampled).toBe(1);
    });

    it("a call's own handlers answer its rounds and are advertised in its _meta only", async () => {
      await using h = await connect({ era: 'modern', tools: [twoQuestions] });
      await h.client.connect();
      await expect(h.client.callTool('login')).rejects.toMatchObject({
        code: 'PROTOCOL_VIOLATION',
      });
      const result = await h.client.callTool('login', undefined, {
        input: {
          sampling: () => Promise.resolve(completion as never),
          elicitation: { form: () => Promise.resolve({ action: 'decline' }) },
        },
      });
      expect(result.content[0]).toMatchObject({
        text: `got ${JSON.stringify({ s: completion, who: { action: 'decline' } })} ${state}`,
      });
      const calls = h.fake.received.filter((r) => r.method === 'tools/call');
      const capabilities = (i: number) =>
        (calls[i]!.params!._meta as Record<string, unknown>)[
          'io.modelcontextprotocol/clientCapabilities'
        ];
      expect(capabilities(0)).toEqual({});
      expect(capabilities(1)).toMatchObject({ sampling: {}, elicitation: { form: {} } });
    });

    it('legacy: a resumption is refused before anything is sent, and handlers get no defer', async () => {
      let deferGiven: unknown = 'unset';
      await using h = await connect(
        {
          era: 'legacy',
          tools: [askingTool('sampling/createMessage', { messages: [], maxTokens: 5 })],
        },
        {
          handlers: {
            sampling: (_p, context) => {
              deferGiven = context.defer;
              return Promise.resolve(completion as never);
            },
          },
        },
      );
      await h.client.connect();
      await h.client.callTool('ask');
      expect(deferGiven).toBeUndefined();
      const sent = h.fake.received.length;
      await expect(
        h.client.callTool('ask', {}, { resume: { inputResponses: {}, requestState: 's' } }),
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: /legacy era/ });
      expect(h.fake.received).toHaveLength(sent);
    });
  });
});
