import { describe, expect, it } from 'vitest';
import { createTransport } from './create-transport.js';
import { LegacySseTransport } from './http/legacy-sse-transport.js';
import { StreamableHttpTransport } from './http/streamable-http-transport.js';
import { StdioTransport } from './stdio/stdio-transport.js';
import type { TransportDefinition } from './transport-definition.js';
import { WebSocketTransport } from './websocket/websocket-transport.js';

describe('createTransport', () => {
  it('builds the transport each type asks for, unstarted, named after its server', async () => {
    const cases: [TransportDefinition, unknown][] = [
      [{ type: 'stdio', command: 'node', args: ['-e', ''] }, StdioTransport],
      [{ type: 'http', url: 'http://127.0.0.1:1/mcp', headers: {} }, StreamableHttpTransport],
      [{ type: 'sse', url: 'http://127.0.0.1:1/sse' }, LegacySseTransport],
      [{ type: 'websocket', url: 'ws://127.0.0.1:1/', headers: {} }, WebSocketTransport],
    ];
    for (const [definition, kind] of cases) {
      const made = await createTransport(definition, { serverName: 'x' });
      expect(made).toBeInstanceOf(kind);
      expect(made.state).toBe('new');
      await made.close();
    }
  });

  it('refuses an unknown type with INVALID_ARGUMENT naming it and the server', async () => {
    const definition = { type: 'carrier-pigeon', url: 'x' } as unknown as TransportDefinition;
    await expect(createTransport(definition, { serverName: 'p' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      serverName: 'p',
      message: expect.stringContaining('"carrier-pigeon"'),
    });
  });
});
