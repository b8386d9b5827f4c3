import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ElicitRequestParams } from '../../protocol/types.js';
import { promptElicitation } from './elicitation-prompt.js';

/** Asks `params` with `typed` as the person's lines; `end`: input ends after them. */
async function answer(params: ElicitRequestParams, typed: string[], end = false) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  input.write(typed.map((line) => `${line}\n`).join(''));
  if (end) input.end();
  const result = await promptElicitation('deploy', params, { input, output });
  input.end();
  return { result, shown };
}

const form: ElicitRequestParams = {
  message: 'Where to?',
  requestedSchema: {
    type: 'object',
    properties: {
      site: { type: 'string', title: 'Site', minLength: 2 },
      replicas: { type: 'integer', minimum: 1, maximum: 5 },
      confirm: { type: 'boolean', description: 'really deploy' },
      region: {
        type: 'string',
        oneOf: [
          { const: 'eu', title: 'Europe' },
          { const: 'us', title: 'America' },
        ],
      },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] } },
      note: { type: 'string' },
    },
    required: ['site', 'replicas', 'confirm', 'region'],
  },
};

describe('promptElicitation', () => {
  it('asks each field, asks again until an answer fits, and accepts with typed content', async () => {
    const { result, shown } = await answer(form, ['x', 'docs', '9', '2', 'yes', '1', '1,c', '']);
    expect(result).toEqual({
      action: 'accept',
      content: { site: 'docs', replicas: 2, confirm: true, region: 'eu', tags: ['a', 'c'] },
    });
    expect(shown).toContain("Server 'deploy' asks: Where to?");
    expect(shown).toContain('at least 2 characters');
    expect(shown).toContain('at most 5');
    expect(shown).toContain('[1) Europe  2) America]');
    expect(shown).toContain('confirm (really deploy) [y/n]');
  });

  it('!decline declines, the end of input cancels', async () => {
    expect((await answer(form, ['docs', '!decline'])).result).toEqual({ action: 'decline' });
    expect((await answer(form, ['docs'], true)).result).toEqual({ action: 'cancel' });
  });

  it('a URL elicitation shows the URL and accepts on Enter', async () => {
    const params: ElicitRequestParams = {
      mode: 'url',
      message: 'Log in',
      url: 'https://example.test/login',
      elicitationId: 'e1',
    };
    const { result, shown } = await answer(params, ['']);
    expect(result).toEqual({ action: 'accept' });
    expect(shown).toContain('Open this URL: https://example.test/login');
  });
});
