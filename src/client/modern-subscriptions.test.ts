import { describe, expect, it } from 'vitest';
import { JsonRpcError } from '../errors/json-rpc-error.js';
import { createFakeServer } from '../testing/fake-mcp-server.js';
import { McpClient } from './mcp-client.js';

describe('modern subscriptions/listen', () => {
  it('opens one listen stream for what the server advertises, and replaces it when subscriptions change', async () => {
    const filters: unknown[] = [];
    let opened: () => void = () => {};
    const { server, clientTransport } = await createFakeServer({
      era: 'modern',
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true } },
      handlers: {
        'subscriptions/listen': (params, context) => {
          filters.push(params.notifications);
          context.notify('notifications/subscriptions/acknowledged', {
            notifications: params.notifications as object,
          });
          opened();
          return new Promise((resolve) =>
            context.signal.addEventListener('abort', () => resolve({})),
          );
        },
      },
    });
    await using client = new McpClient({ transport: clientTransport });
    const first = new Promise<void>((resolve) => (opened = resolve));
    await client.connect();
    await first;
    expect(filters).toEqual([{ toolsListChanged: true }]);

    const second = new Promise<void>((resolve) => (opened = resolve));
    await client.subscribeResource('file:///a.txt');
    await second;
    expect(filters[1]).toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ['file:///a.txt'],
    });
    // The replaced stream was cancelled, as the spec's cancellation notification.
    expect(server.methods()).toContain('notifications/cancelled');

    const updated = new Promise<string>((resolve) =>
      client.onResourceUpdated(({ uri }) => resolve(uri)),
    );
    server.peer.notify('notifications/resources/updated', { uri: 'file:///a.txt' });
    expect(await updated).toBe('file:///a.txt');
    await server.close();
  });

  it('reopens a stream that fails, with backoff', async () => {
    let attempts = 0;
    let reopened: () => void = () => {};
    const { server, clientTransport } = await createFakeServer({
      era: 'modern',
      capabilities: { tools: { listChanged: true } },
      handlers: {
        'subscriptions/listen': (_params, context) => {
          if (++attempts === 1) throw new JsonRpcError(-32603, 'listen broke');
          reopened();
          return new Promise((resolve) =>
            context.signal.addEventListener('abort', () => resolve({})),
          );
        },
      },
    });
    await using client = new McpClient({ transport: clientTransport });
    const again = new Promise<void>((resolve) => (reopened = resolve));
    await client.connect();
    await again;
    expect(attempts).toBe(2);
    await server.close();
  });

  it('opens no stream when there is nothing to listen for, and never on a legacy server', async () => {
    for (const era of ['modern', 'legacy'] as const) {
      const { server, clientTransport } = await createFakeServer({
        era,
        capabilities: { tools: {} },
      });
      await using client = new McpClient({ transport: clientTransport });
      await client.connect();
      await client.ping();
      expect(server.methods()).not.toContain('subscriptions/listen');
      await server.close();
    }
  });
});
