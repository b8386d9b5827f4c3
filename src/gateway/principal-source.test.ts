import { describe, expect, it } from 'vitest';
import type { McpHost } from '../host/mcp-host.js';
import { toDisposable } from '../internal/disposable.js';
import type { GatewaySource } from './gateway-source.js';
import { principalSource } from './principal-source.js';

/** A source that lists what it is given and records what is asked of it. */
function recordingSource(
  side: string,
  lists: { prompts?: string[]; templates?: string[]; resources?: string[] },
  asked: string[],
): GatewaySource {
  const record = (what: string) => asked.push(`${side}:${what}`);
  const listeners: Array<(message: { server: string }) => void> = [];
  const source: Partial<GatewaySource> = {
    tools: () => [],
    prompts: () =>
      Promise.resolve(
        (lists.prompts ?? []).map((name) => ({ name, server: side, originalName: name })),
      ),
    resourceTemplates: () =>
      Promise.resolve(
        (lists.templates ?? []).map((uriTemplate) => ({
          uriTemplate,
          name: uriTemplate,
          server: side,
        })),
      ),
    resources: () =>
      Promise.resolve((lists.resources ?? []).map((uri) => ({ uri, name: uri, server: side }))),
    complete: (ref) => {
      record(`complete ${ref.type === 'ref/prompt' ? ref.name : ref.uri}`);
      return Promise.resolve({ completion: { values: [side] } });
    },
    subscribeResource: (uri) => {
      record(`subscribe ${uri}`);
      return Promise.resolve(side);
    },
    unsubscribeResource: (uri, options) => {
      record(`unsubscribe ${uri} ${options.server}`);
      return Promise.resolve();
    },
    setLoggingLevel: (level) => {
      record(`level ${level}`);
      return Promise.resolve();
    },
    onLogMessage: (listener) => {
      const heard = (message: { server: string }) =>
        listener(message as Parameters<typeof listener>[0]);
      listeners.push(heard);
      return toDisposable(() => listeners.splice(listeners.indexOf(heard), 1));
    },
    onResourceUpdated: () => toDisposable(() => {}),
  };
  const emitLog = () => listeners.forEach((listener) => listener({ server: side }));
  return Object.assign(source, { emitLog }) as unknown as GatewaySource;
}

const ownHost = { status: () => [{ name: 'mine', state: 'ready' }] } as unknown as McpHost;

describe('principalSource: the new methods go to the side that owns what they name', () => {
  it('routes completions, subscriptions and log levels between the shared and own servers', async () => {
    const asked: string[] = [];
    const shared = recordingSource(
      'shared',
      { prompts: ['p_shared'], resources: ['s://a'] },
      asked,
    );
    const own = recordingSource(
      'own',
      { prompts: ['p_own'], templates: ['o://{x}'], resources: ['o://b'] },
      asked,
    );
    const source = principalSource(shared, own, ownHost, { principal: 'alice' });

    const values = async (...args: Parameters<GatewaySource['complete']>) =>
      (await source.complete(...args)).completion.values;
    const argument = { name: 'a', value: '' };
    expect(await values({ type: 'ref/prompt', name: 'p_own' }, argument, {}, {})).toEqual(['own']);
    expect(await values({ type: 'ref/prompt', name: 'p_shared' }, argument, {}, {})).toEqual([
      'shared',
    ]);
    expect(await values({ type: 'ref/resource', uri: 'o://{x}' }, argument, {}, {})).toEqual([
      'own',
    ]);
    expect(await source.subscribeResource('o://b', {})).toBe('own');
    expect(await source.subscribeResource('s://a', {})).toBe('shared');
    await source.unsubscribeResource('o://b', { server: 'mine' });
    await source.unsubscribeResource('s://a', { server: 'theirs' });
    await source.setLoggingLevel('info');

    expect(asked).toEqual([
      'own:complete p_own',
      'shared:complete p_shared',
      'own:complete o://{x}',
      'own:subscribe o://b',
      'shared:subscribe s://a',
      'own:unsubscribe o://b mine',
      'shared:unsubscribe s://a theirs',
      'shared:level info',
      'own:level info',
    ]);
  });

  it("hears both sides' log messages until disposed", () => {
    const shared = recordingSource('shared', {}, []);
    const own = recordingSource('own', {}, []);
    const heard: string[] = [];
    const subscription = principalSource(shared, own, ownHost, {
      principal: 'alice',
    }).onLogMessage((message) => heard.push(message.server));
    const emit = (source: GatewaySource) => (source as unknown as { emitLog(): void }).emitLog();
    emit(shared);
    emit(own);
    subscription.dispose();
    emit(shared);
    expect(heard).toEqual(['shared', 'own']);
  });
});
