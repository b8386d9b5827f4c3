import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { McpHostError } from '../../errors/mcp-host-error.js';
import {
  callbackInputProvider,
  chainInputProviders,
  envInputProvider,
  InputResolver,
  ttyInputProvider,
} from './input-providers.js';
import type { InputConfig } from '../model.js';

const token: InputConfig = { id: 'token', type: 'promptString', password: true };
const region: InputConfig = {
  id: 'region',
  type: 'pickString',
  description: 'Region',
  options: ['eu', 'us'],
  default: 'eu',
};

async function rejection(promise: Promise<unknown>): Promise<McpHostError> {
  try {
    await promise;
  } catch (error) {
    return error as McpHostError;
  }
  throw new Error('expected a rejection');
}

/** A fake terminal: what the user types goes in `input`, what the prompt shows comes out. */
function terminal(): {
  input: PassThrough & { isTTY: boolean };
  output: PassThrough;
  shown: () => string;
} {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  return { input, output, shown: () => shown };
}

describe('input providers', () => {
  it('reads an environment JSON', async () => {
    const provider = envInputProvider({ env: { MCP_HOST_INPUTS: '{"token":"s3cret-value"}' } });
    expect(await provider(token, {})).toBe('s3cret-value');
    expect(await provider(region, {})).toBeUndefined();
  });

  it('refuses a malformed environment JSON without quoting it', async () => {
    const provider = envInputProvider({ env: { MCP_HOST_INPUTS: '{"token": s3cret-value' } });
    const error = await rejection(provider(token, {}));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe('MCP_HOST_INPUTS is not valid JSON');
    expect(JSON.stringify(error)).not.toContain('s3cret');
    const notStrings = envInputProvider({ env: { MCP_HOST_INPUTS: '{"token": 42}' } });
    expect((await rejection(notStrings(token, {}))).code).toBe('CONFIG_INVALID');
  });

  it('asks a callback, and chains providers', async () => {
    const calls: string[] = [];
    const callback = callbackInputProvider((input, context) => {
      calls.push(`${input.id}@${context.server}`);
      return input.id === 'token' ? 'from-callback' : undefined;
    });
    const chained = chainInputProviders(
      envInputProvider({ env: { MCP_HOST_INPUTS: '{"region":"us"}' } }),
      callback,
    );
    expect(await chained(region, { server: 'a' })).toBe('us');
    expect(await chained(token, { server: 'a' })).toBe('from-callback');
    expect(calls).toEqual(['token@a']);
  });

  it('uses the default, then fails with CONFIG_INPUT_REQUIRED when non-interactive', async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: false });
    const resolver = new InputResolver({
      inputs: [token, region],
      provider: ttyInputProvider({ input: stdin, output: new PassThrough() }),
    });
    expect(await resolver.resolve('region')).toBe('eu');
    const error = await rejection(
      resolver.resolve('token', { server: 'github', where: '/x/.vscode/mcp.json: servers.github' }),
    );
    expect(error.code).toBe('CONFIG_INPUT_REQUIRED');
    expect(error.serverName).toBe('github');
    expect(error.message).toMatch(
      /^server 'github': \/x\/\.vscode\/mcp\.json: servers\.github: input 'token' is required and no value was given: set MCP_HOST_INPUTS=/,
    );
  });

  it('refuses a pickString value that is not an option', async () => {
    const resolver = new InputResolver({
      inputs: [region],
      provider: callbackInputProvider(() => 'mars'),
    });
    expect((await rejection(resolver.resolve('region'))).code).toBe('CONFIG_INVALID');
  });

  it('asks once per id, and again after a failure', async () => {
    let calls = 0;
    const resolver = new InputResolver({
      provider: callbackInputProvider(() => (++calls === 1 ? undefined : 'second')),
    });
    await rejection(resolver.resolve('x'));
    expect(await Promise.all([resolver.resolve('x'), resolver.resolve('x')])).toEqual([
      'second',
      'second',
    ]);
    expect(calls).toBe(2);
  });

  it('prompts on a terminal without echoing a password', async () => {
    const tty = terminal();
    const provider = ttyInputProvider({ input: tty.input, output: tty.output });
    const answer = provider(token, { server: 'github' });
    await new Promise((resolve) => setImmediate(resolve));
    tty.input.write('hunter2-password\r');
    expect(await answer).toBe('hunter2-password');
    expect(tty.shown()).toContain("token (server 'github'): ");
    expect(tty.shown()).not.toContain('hunter2');
  });

  it('prompts for a pick by number, and echoes non-secret answers', async () => {
    const tty = terminal();
    const provider = ttyInputProvider({ input: tty.input, output: tty.output });
    const answer = provider(region, {});
    await new Promise((resolve) => setImmediate(resolve));
    tty.input.write('2\r');
    expect(await answer).toBe('us');
    expect(tty.shown()).toContain('  1) eu\n  2) us\nRegion [eu]: ');
    expect(tty.shown()).toContain('2');
  });

  it('gives no value for an empty answer (the default applies)', async () => {
    const tty = terminal();
    const resolver = new InputResolver({
      inputs: [region],
      provider: ttyInputProvider({ input: tty.input, output: tty.output }),
    });
    const answer = resolver.resolve('region');
    await new Promise((resolve) => setImmediate(resolve));
    tty.input.write('\r');
    expect(await answer).toBe('eu');
  });

  it('fails with ABORTED when the signal fires at the prompt', async () => {
    const tty = terminal();
    const provider = ttyInputProvider({ input: tty.input, output: tty.output });
    const controller = new AbortController();
    const answer = provider(token, { signal: controller.signal });
    controller.abort();
    expect((await rejection(answer)).code).toBe('ABORTED');
  });
});
