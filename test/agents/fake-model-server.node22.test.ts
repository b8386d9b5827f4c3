/**
 * The fake model server speaks well enough for the real provider SDKs: openai 7 (which needs
 * Node 22, hence this file's name) gets a queued reply, streaming included, and a request with
 * nothing queued fails loudly.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../helpers/fake-model-server.js';

describe('fake model server', () => {
  it('answers the OpenAI SDK in order, as JSON and as a stream, and records each request', async () => {
    await using model = await startFakeModelServer();
    const openai = new OpenAI({ apiKey: 'test-key', baseURL: `${model.url}/v1`, maxRetries: 0 });
    model.reply(
      {
        json: {
          id: 'c1',
          object: 'chat.completion',
          created: 1,
          model: 'fake',
          choices: [
            { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hello' } },
          ],
        },
      },
      {
        sse: [
          {
            data: {
              id: 'c2',
              object: 'chat.completion.chunk',
              created: 1,
              model: 'fake',
              choices: [
                { index: 0, delta: { role: 'assistant', content: 'str' }, finish_reason: null },
              ],
            },
          },
          {
            data: {
              id: 'c2',
              object: 'chat.completion.chunk',
              created: 1,
              model: 'fake',
              choices: [{ index: 0, delta: { content: 'eam' }, finish_reason: 'stop' }],
            },
          },
          { data: '[DONE]' },
        ],
      },
    );
    const first = await openai.chat.completions.create({
      model: 'fake',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(first.choices[0]?.message.content).toBe('hello');
    let streamed = '';
    const stream = await openai.chat.completions.create({
      model: 'fake',
      messages: [{ role: 'user', content: 'again' }],
      stream: true,
    });
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? '';
    expect(streamed).toBe('stream');
    expect(model.requests.map((r) => [r.path, r.headers.authorization])).toEqual([
      ['/v1/chat/completions', 'Bearer test-key'],
      ['/v1/chat/completions', 'Bearer test-key'],
    ]);
    await expect(
      openai.chat.completions.create({ model: 'fake', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toThrow(/no reply queued for request 3/);
  });
});
