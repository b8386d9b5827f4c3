/**
 * The gateway's completions, logging and resource subscriptions, and reads of URIs only a
 * template matches, with official clients in front (v1 `@modelcontextprotocol/sdk`, and v2
 * `@modelcontextprotocol/client` pinned to 2026-07-28 where the era matters) and the SDK fixtures
 * behind (legacy-sdk-server.mjs and modern-sdk-server.mjs: `log`, completions, the
 * `fixture://colours/{name}` template, `touch-resource`). One in-process gateway serves several
 * clients over in-memory pipes; the legacy backend's transport records what the host sends it, so
 * a test can count its upstream subscriptions.
 */
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { McpHost } from '../../src/index.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import { StdioTransport } from '../../src/stdio.js';
import { createLinkedTransports } from '../../src/testing/index.js';
import { MODERN, sdkTransport, text } from '../helpers/gateway-harness.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';
import { RecordingTransport } from '../helpers/recording-transport.js';

/**
 * A started host over the two SDK fixtures; `legacy`'s transport records what the host sends it
 * (every connection's recorder kept in `sentToLegacy`).
 */
async function fixtureHost() {
  const recorders: RecordingTransport[] = [];
  const host = new McpHost({
    servers: [
      {
        name: 'legacy',
        transport: () => {
          const recorder = new RecordingTransport(
            new StdioTransport({
              serverName: 'legacy',
              command: process.execPath,
              args: [mcpFixtures.legacySdk],
            }),
          );
          recorders.push(recorder);
          return recorder;
        },
      },
      {
        name: 'modern',
        transport: { type: 'stdio', command: process.execPath, args: [mcpFixtures.modernSdk] },
      },
    ],
    health: { intervalMs: 0 },
  });
  await host.start();
  return {
    host,
    /** The requests of `method` the host sent the legacy backend. */
    sentToLegacy(method: string): number {
      return recorders
        .flatMap((recorder) => recorder.sent)
        .filter((message) => (message as { method?: string }).method === method).length;
    },
    async [Symbol.asyncDispose]() {
      await host.close();
    },
  };
}

/** A v1 client of `gateway`, connected in process, with the log messages and updates it got. */
async function v1Client(gateway: Gateway) {
  const [clientEnd, gatewayEnd] = createLinkedTransports();
  const served = gateway.serve(gatewayEnd);
  const client = new ClientV1({ name: 'methods-test', version: '1.0.0' });
  const logs: { level: string; data: unknown }[] = [];
  const updates: string[] = [];
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((waiter) => waiter());
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logs.push({ level: notification.params.level, data: notification.params.data });
    wake();
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updates.push(notification.params.uri);
    wake();
  });
  await client.connect(sdkTransport(clientEnd));
  return {
    client,
    logs,
    updates,
    /** Resolves once `check()` holds (checked on every notification). */
    until(check: () => boolean): Promise<void> {
      return new Promise((resolve) => {
        const test = () => {
          if (!check()) return;
          waiters.delete(test);
          resolve();
        };
        waiters.add(test);
        test();
      });
    },
    async [Symbol.asyncDispose]() {
      await client.close();
      await served;
    },
  };
}

describe('gateway methods (in process) with the official clients', () => {
  it('declares completions, logging and resource subscriptions', async () => {
    await using _guard = leakGuard();
    await using fixtures = await fixtureHost();
    await using gateway = createGateway({ host: fixtures.host });
    await using one = await v1Client(gateway);
    expect(one.client.getServerCapabilities()).toMatchObject({
      completions: {},
      logging: {},
      resources: { subscribe: true, listChanged: true },
    });
  });

  it('routes completion/complete by a prompt name or a resource template to its server', async () => {
    await using _guard = leakGuard();
    await using fixtures = await fixtureHost();
    await using gateway = createGateway({ host: fixtures.host });
    await using one = await v1Client(gateway);
    const { client } = one;

    const legacyPrompt = await client.complete({
      ref: { type: 'ref/prompt', name: 'mcp__legacy__greet' },
      argument: { name: 'name', value: 'a' },
    });
    expect(legacyPrompt.completion.values).toEqual(['alice']);
    const modernPrompt = await client.complete({
      ref: { type: 'ref/prompt', name: 'mcp__modern__greet' },
      argument: { name: 'name', value: 'c' },
    });
    expect(modernPrompt.completion.values).toEqual(['carol']);
    const template = await client.complete({
      ref: { type: 'ref/resource', uri: 'fixture://colours/{name}' },
      argument: { name: 'name', value: 'g' },
    });
    expect(template.completion.values).toEqual(['green']);

    await expect(
      client.complete({
        ref: { type: 'ref/prompt', name: 'mcp__legacy__nope' },
        argument: { name: 'name', value: 'a' },
      }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      client.complete({
        ref: { type: 'ref/resource', uri: 'fixture://nowhere/{x}' },
        argument: { name: 'x', value: '' },
      }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('serves completion/complete to a modern client too', async () => {
    await using _guard = leakGuard();
    await using fixtures = await fixtureHost();
    await using gateway = createGateway({ host: fixtures.host });
    const [clientEnd, gatewayEnd] = createLinkedTransports();
    const served = gateway.serve(gatewayEnd);
    const client = new ClientV2({ name: 'modern-test', version: '1.0.0' }, { ...MODERN });
    await client.connect(sdkTransport(clientEnd));
    try {
      const result = await client.complete({
        ref: { type: 'ref/prompt', name: 'mcp__modern__greet' },
        argument: { name: 'name', value: 'b' },
      });
      expect(result.completion.values).toEqual(['bob']);
    } finally {
      await client.close();
      await served;
    }
  });

  it('reads a URI that only a resource template matches from the server owning the template', async () => {
    await using _guard = leakGuard();
    await using fixtures = await fixtureHost();
    await using gateway = createGateway({ host: fixtures.host });
    await using one = await v1Client(gateway);
    const listed = (await one.client.listResources()).resources.map((resource) => resource.uri);
    expect(listed).not.toContain('fixture://colours/purple');

    const read = await one.client.readResource({ uri: 'fixture://colours/purple' });
    expect(read.contents).toEqual([
      { uri: 'fixture://colours/purple', mimeType: 'text/plain', text: 'colour purple' },
    ]);
    // Nothing matches: still the legacy era's resource-not-found.
    await expect(one.client.readResource({ uri: 'fixture://colours/a/b' })).rejects.toMatchObject({
      code: -32002,
    });
  });

  it('passes a backend log message on to the client whose call it is, at its level', async () => {
    await using _guard = leakGuard();
    await using fixtures = await fixtureHost();
    await using gateway = createGateway({ host: fixtures.host });
    await using verbose = await v1Client(gateway);
    await using quiet = await v1Client(gateway);
    await verbose.client.setLoggingLevel('info');
    await quiet.client.setLoggingLevel('error');
    // The servers are given the most verbose level asked for.
    expect(fixtures.sentToLegacy('logging/setLevel')).toBeGreaterThanOrEqual(1);

    // Below the quiet client's level: its own call's message does not reach it...
    await quiet.client.callTool({
      name: 'mcp__legacy__log',
      arguments: { level: 'warning', message: 'quiet warning' },
    });
    // ...but one at its level does, after the first (messages keep their order).
    await quiet.client.callTool({
      name: 'mcp__legacy__log',
      arguments: { level: 'error', message: 'quiet error' },
    });
    await quiet.until(() => quiet.logs.length >= 1);
    await quiet.client.ping();
    expect(quiet.logs.map((log) => log.level)).toEqual(['error']);

    // A call's message goes to that call's client only.
    await verbose.client.callTool({
      name: 'mcp__legacy__log',
      arguments: { level: 'warning', message: 'verbose warning' },
    });
    await verbose.until(() => verbose.logs.length >= 1);
    await verbose.client.ping();
    await quiet.client.ping();
    expect(verbose.logs.map((log) => log.level)).toEqual(['warning']);
    expect(JSON.stringify(verbose.logs)).toContain('verbose warning');
    expect(quiet.logs.map((log) => log.level)).toEqual(['error']);
  });

  it('passes a modern backend’s log messages on to a modern client that asked in _meta', async () => {
    await using _guard = leakGuard();
    await using fixtures = await fixtureHost();
    await using gateway = createGateway({ host: fixtures.host });
    const [clientEnd, gatewayEnd] = createLinkedTransports();
    const served = gateway.serve(gatewayEnd);
    const client = new ClientV2({ name: 'modern-test', version: '1.0.0' }, { ...MODERN });
    const logs: { level: string; data: unknown }[] = [];
    let logged: () => void = () => {};
    const firstLog = new Promise<void>((resolve) => (logged = resolve));
    client.setNotificationHandler('notifications/message', (notification) => {
      logs.push({ level: notification.params.level, data: notification.params.data });
      logged();
    });
    await client.connect(sdkTransport(clientEnd));
    try {
      // No level asked: no messages (the modern era's rule).
      await client.callTool({
        name: 'mcp__modern__log',
        arguments: { level: 'error', message: 'unasked' },
      });
      // The level rides on the request's `_meta`, as the era has it.
      const atWarning = { 'io.modelcontextprotocol/logLevel': 'warning' };
      await client.callTool({
        name: 'mcp__modern__log',
        arguments: { level: 'info', message: 'below' },
        _meta: atWarning,
      });
      const result = await client.callTool({
        name: 'mcp__modern__log',
        arguments: { level: 'error', message: 'modern error' },
        _meta: atWarning,
      });
      expect(result.isError).not.toBe(true);
      await firstLog;
      // A round trip after it: anything sent before would have been handled by now.
      await client.listTools();
      expect(logs.map((log) => log.level)).toEqual(['error']);
      expect(JSON.stringify(logs)).toContain('modern error');
    } finally {
      await client.close();
      await served;
    }
  });

  it('passes the log level of a modern prompts/get, resources/read and completion/complete on to the servers', async () => {
    await using _guard = leakGuard();
    await using fixtures = await fixtureHost();
    await using gateway = createGateway({ host: fixtures.host });
    const [clientEnd, gatewayEnd] = createLinkedTransports();
    const served = gateway.serve(gatewayEnd);
    const client = new ClientV2({ name: 'modern-test', version: '1.0.0' }, { ...MODERN });
    await client.connect(sdkTransport(clientEnd));
    const at = (level: string) => ({ 'io.modelcontextprotocol/logLevel': level });
    const setLevels = () => fixtures.sentToLegacy('logging/setLevel');
    try {
      const before = setLevels();
      // Each more verbose than the last: each is given to the servers before the request goes on.
      const prompt = await client.getPrompt({
        name: 'mcp__legacy__greet',
        arguments: { name: 'ada' },
        _meta: at('error'),
      });
      expect(JSON.stringify(prompt.messages)).toContain('ada');
      expect(setLevels()).toBe(before + 1);
      const read = await client.readResource({
        uri: 'fixture://static/hello',
        _meta: at('warning'),
      });
      expect(read.contents[0]).toMatchObject({ text: 'hello, world' });
      expect(setLevels()).toBe(before + 2);
      const completed = await client.complete({
        ref: { type: 'ref/prompt', name: 'mcp__legacy__greet' },
        argument: { name: 'name', value: 'a' },
        _meta: at('info'),
      });
      expect(completed.completion.values).toContain('alice');
      expect(setLevels()).toBe(before + 3);
      // Not a level: -32602, as for a call.
      await expect(
        client.getPrompt({
          name: 'mcp__legacy__greet',
          arguments: { name: 'x' },
          _meta: at('loud'),
        }),
      ).rejects.toThrow();
    } finally {
      await client.close();
      await served;
    }
  });

  it('subscribes two clients to one URI with one upstream subscription, and passes updates on', async () => {
    await using _guard = leakGuard();
    await using fixtures = await fixtureHost();
    await using gateway = createGateway({ host: fixtures.host });
    await using a = await v1Client(gateway);
    await using b = await v1Client(gateway);
    const uri = 'fixture://static/hello';
    const touch = async () =>
      text(await a.client.callTool({ name: 'mcp__legacy__touch-resource', arguments: { uri } }));

    await a.client.subscribeResource({ uri });
    await b.client.subscribeResource({ uri });
    expect(fixtures.sentToLegacy('resources/subscribe')).toBe(1);
    expect(await touch()).not.toContain('not subscribed');
    await a.until(() => a.updates.length === 1);
    await b.until(() => b.updates.length === 1);
    expect(a.updates).toEqual([uri]);

    // One leaves: the upstream subscription stays for the other.
    await a.client.unsubscribeResource({ uri });
    expect(fixtures.sentToLegacy('resources/unsubscribe')).toBe(0);
    await touch();
    await b.until(() => b.updates.length === 2);
    await a.client.ping();
    expect(a.updates).toEqual([uri]);

    // The last leaves: unsubscribed upstream.
    await b.client.unsubscribeResource({ uri });
    expect(fixtures.sentToLegacy('resources/unsubscribe')).toBe(1);
    expect(await touch()).toContain('not subscribed');

    // A URI nobody serves: resource not found, nothing subscribed.
    await expect(a.client.subscribeResource({ uri: 'fixture://nowhere' })).rejects.toMatchObject({
      code: -32002,
    });
    expect(fixtures.sentToLegacy('resources/subscribe')).toBe(1);
  });

  it('unsubscribes upstream when the last subscribed client goes away', async () => {
    await using _guard = leakGuard();
    await using fixtures = await fixtureHost();
    await using gateway = createGateway({ host: fixtures.host });
    const uri = 'fixture://colours/red';
    {
      await using gone = await v1Client(gateway);
      await gone.client.subscribeResource({ uri });
      expect(fixtures.sentToLegacy('resources/subscribe')).toBe(1);
    }
    await using stays = await v1Client(gateway);
    await stays.until(() => fixtures.sentToLegacy('resources/unsubscribe') === 1);
    expect(
      text(
        await stays.client.callTool({ name: 'mcp__legacy__touch-resource', arguments: { uri } }),
      ),
    ).toContain('not subscribed');
  });
});
