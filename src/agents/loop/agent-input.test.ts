import { describe, expect, it } from 'vitest';
import { ScriptedModel, say } from '../../../test/helpers/scripted-model.js';
import { JsonRpcError } from '../../errors/json-rpc-error.js';
import { DEFAULT_SAMPLING_LIMITS, SamplingBridge } from './agent-input.js';

const context = { serverName: 's', signal: new AbortController().signal };
const ask = (maxTokens = 50) => ({
  messages: [{ role: 'user' as const, content: { type: 'text', text: 'hi' } }],
  maxTokens,
});

describe('SamplingBridge', () => {
  it('needs an approve hook, and whole positive limits', () => {
    const model = new ScriptedModel([]);
    expect(() => new SamplingBridge({} as never, model)).toThrow(/approve/);
    expect(() => new SamplingBridge({ approve: () => true, maxTokensPerMinute: 0 }, model)).toThrow(
      /sampling.maxTokensPerMinute must be an integer of at least 1/,
    );
  });

  it('caps the tokens of one answer, and refuses once the minute holds its token limit', async () => {
    let now = 0;
    const model = new ScriptedModel([
      say('a', { inputTokens: 6, outputTokens: 4 }),
      say('b', { inputTokens: 1, outputTokens: 1 }),
    ]);
    const bridge = new SamplingBridge(
      { approve: () => true, maxTokensPerMinute: 10, now: () => now },
      model,
    );
    const first = await bridge.answer(ask(5_000), context);
    expect(first).toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'a' },
      model: 'scripted',
      stopReason: 'endTurn',
    });
    expect(model.requests[0]!.maxOutputTokens).toBe(DEFAULT_SAMPLING_LIMITS.maxTokensPerRequest);
    const refused = await bridge.answer(ask(), context).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(JsonRpcError);
    expect(refused).toMatchObject({
      code: -1,
      message: expect.stringContaining('used 10 tokens in the last minute, its limit is 10'),
    });
    now = 60_001;
    await expect(bridge.answer(ask(), context)).resolves.toMatchObject({
      content: { text: 'b' },
    });
  });

  it('refuses content it cannot give a model with invalid params, before asking anyone', async () => {
    let asked = 0;
    const bridge = new SamplingBridge({ approve: () => (asked++, true) }, new ScriptedModel([]));
    const params = { messages: [{ role: 'user', content: { type: 'tool_use' } }], maxTokens: 5 };
    await expect(bridge.answer(params as never, context)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('messages[0]'),
    });
    expect(asked).toBe(0);
  });
});
