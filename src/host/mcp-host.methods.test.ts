import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import type { HostLogMessage } from './mcp-host.js';
import { fake, host, stateOf } from './host-test-helpers.js';

/** A server with a resource template `note://{id}`, completions, logging and subscriptions. */
function notes() {
  return fake('notes', {
    capabilities: {
      tools: {},
      resources: { subscribe: true },
      prompts: {},
      completions: {},
      logging: {},
    },
    prompts: [{ name: 'summarise', arguments: [{ name: 'topic' }] }],
    handlers: {
      'resources/templates/list': () => ({
        resourceTemplates: [{ uriTemplate: 'note://{id}', name: 'note' }],
      }),
      'resources/read': (params) => ({
        contents: [{ uri: params.uri, text: `note ${String(params.uri)}` }],
      }),
      'completion/complete': (params) => ({
        completion: {
          values: [`${JSON.stringify(params.ref)}:${JSON.stringify(params.argument)}`],
        },
      }),
      'resources/subscribe': () => ({}),
      'resources/unsubscribe': () => ({}),
    },
  });
}

describe('McpHost: completions, template reads, subscriptions, logging', () => {
  it('reads a URI that only a resource template matches from the server owning it', async () => {
    await using _guard = leakGuard();
    const plain = fake('plain', { resources: [{ uri: 'file:///a', name: 'a', text: 'a' }] });
    const owner = notes();
    await using h = await host({ servers: [plain.definition, owner.definition] });
    expect(await h.readResource('note://42')).toEqual({
      contents: [{ uri: 'note://42', text: 'note note://42' }],
    });
    await expect(h.readResource('note://4/2')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    // Through a view: only its servers' templates count.
    expect(await h.view({ servers: ['notes'] }).readResource('note://7')).toMatchObject({
      contents: [{ uri: 'note://7' }],
    });
    await expect(h.view({ servers: ['plain'] }).readResource('note://7')).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('routes a completion by prompt name or URI template, in the server’s own terms', async () => {
    await using _guard = leakGuard();
    const owner = notes();
    const bare = fake('bare', { prompts: [{ name: 'hello' }] });
    await using h = await host({ servers: [owner.definition, bare.definition] });

    const byPrompt = await h.complete(
      { type: 'ref/prompt', name: 'mcp__notes__summarise' },
      { name: 'topic', value: 'a' },
    );
    expect(byPrompt.completion.values).toEqual([
      '{"type":"ref/prompt","name":"summarise"}:{"name":"topic","value":"a"}',
    ]);
    const byTemplate = await h.complete(
      { type: 'ref/resource', uri: 'note://{id}' },
      { name: 'id', value: '4' },
    );
    expect(byTemplate.completion.values[0]).toContain('note://{id}');

    await expect(
      h.complete({ type: 'ref/prompt', name: 'mcp__notes__nope' }, { name: 'x', value: '' }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(
      h.complete({ type: 'ref/prompt', name: 'mcp__bare__hello' }, { name: 'x', value: '' }),
    ).rejects.toMatchObject({ code: 'CAPABILITY_NOT_SUPPORTED', serverName: 'bare' });
    expect(bare.servers[0]!.methods()).not.toContain('completion/complete');
    // A view refuses a reference outside it.
    await expect(
      h
        .view({ servers: ['bare'] })
        .complete({ type: 'ref/prompt', name: 'mcp__notes__summarise' }, { name: 'x', value: '' }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('subscribes on the owning server, passes its updates on, and subscribes again after a restart', async () => {
    await using _guard = leakGuard();
    const owner = notes();
    await using h = await host({ servers: [owner.definition] });
    const updated = new Promise((resolve) => h.onResourceUpdated(resolve));

    expect(await h.subscribeResource('note://1')).toBe('notes');
    expect(owner.servers[0]!.received).toContainEqual({
      method: 'resources/subscribe',
      params: { uri: 'note://1' },
    });
    owner.servers[0]!.peer.notify('notifications/resources/updated', { uri: 'note://1' });
    expect(await updated).toEqual({ server: 'notes', uri: 'note://1' });

    await h.restartServer('notes');
    await stateOf(h, 'notes', 'ready');
    expect(owner.servers).toHaveLength(2);
    expect(owner.servers[1]!.methods()).toContain('resources/subscribe');

    await h.unsubscribeResource('note://1');
    expect(owner.servers[1]!.methods()).toContain('resources/unsubscribe');
    await h.restartServer('notes');
    expect(owner.servers[2]!.methods()).not.toContain('resources/subscribe');
  });

  it('sets the servers’ log level, now and on later connections, and reports their messages', async () => {
    await using _guard = leakGuard();
    const owner = notes();
    const silent = fake('silent');
    await using h = await host({ servers: [owner.definition, silent.definition] });
    const logged = new Promise<HostLogMessage>((resolve) => h.onLogMessage(resolve));

    await h.setLoggingLevel('warning');
    expect(owner.servers[0]!.received).toContainEqual({
      method: 'logging/setLevel',
      params: { level: 'warning' },
    });
    // A server that did not declare logging is not asked.
    expect(silent.servers[0]!.methods()).not.toContain('logging/setLevel');

    owner.servers[0]!.peer.notify('notifications/message', { level: 'error', data: 'boom' });
    expect(await logged).toEqual({ server: 'notes', level: 'error', data: 'boom' });

    await h.restartServer('notes');
    expect(owner.servers[1]!.received).toContainEqual({
      method: 'logging/setLevel',
      params: { level: 'warning' },
    });
  });
});
