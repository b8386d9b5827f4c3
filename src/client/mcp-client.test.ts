import { describe, expect, it } from 'vitest';
import { JsonRpcError } from '../errors/json-rpc-error.js';
import { connect, echo } from '../../test/helpers/mcp-client-harness.js';

describe('era detection', () => {
  it('opens a legacy server with initialize after the probe fails, newest legacy version first', async () => {
    await using h = await connect({ era: 'legacy', tools: [echo] });
    await h.client.connect();
    expect(h.client.era).toBe('legacy');
    expect(h.client.session?.version).toBe('2025-11-25');
    expect(h.fake.methods()).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
    ]);
    expect((await h.client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
  });

  it('accepts an older legacy version the server answers with', async () => {
    await using h = await connect({ era: 'legacy', legacyVersions: ['2024-11-05'] });
    await h.client.connect();
    expect(h.client.session?.version).toBe('2024-11-05');
  });

  it('fails clearly, naming both sides, when the legacy server answers a version we do not speak', async () => {
    await using h = await connect({ era: 'legacy', legacyVersions: ['1999-01-01'] });
    const error = await h.client.connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PROTOCOL_VERSION_UNSUPPORTED' });
    expect((error as Error).message).toContain('1999-01-01');
    expect((error as Error).message).toContain('2025-11-25');
    expect(h.client.state).toBe('closed');
  });

  it('stays modern with a modern server: no initialize, _meta on every request', async () => {
    await using h = await connect({
      era: 'modern',
      tools: [echo],
      serverInfo: { name: 'm', version: '2' },
    });
    await h.client.connect();
    expect(h.client.era).toBe('modern');
    expect(h.client.session?.version).toBe('2026-07-28');
    expect(h.client.session?.serverInfo).toEqual({ name: 'm', version: '2' });
    await h.client.listTools();
    expect(h.fake.methods()).toEqual(['server/discover', 'tools/list']);
    const meta = h.fake.received[1]!.params!._meta as Record<string, unknown>;
    expect(meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    expect(meta['io.modelcontextprotocol/clientCapabilities']).toEqual({});
    expect(meta['io.modelcontextprotocol/clientInfo']).toMatchObject({ name: 'mcp-host' });
  });

  it('prefers modern with a dual-era server', async () => {
    await using h = await connect({ era: 'dual' });
    await h.client.connect();
    expect(h.client.era).toBe('modern');
  });

  it.each([
    [
      '-32602',
      { [`server/discover`]: () => Promise.reject(new JsonRpcError(-32602, 'bad params')) },
    ],
    ['an empty result', { 'server/discover': () => ({}) }],
  ])('falls back to initialize when discover answers %s', async (_label, handlers) => {
    await using h = await connect({ era: 'dual', handlers });
    await h.client.connect();
    expect(h.client.era).toBe('legacy');
    expect(h.fake.methods()).toContain('initialize');
  });

  it('falls back right after the probe timeout when discover is never answered', async () => {
    await using h = await connect(
      { era: 'dual', handlers: { 'server/discover': () => new Promise(() => {}) } },
      { discoverTimeoutMs: 100 },
    );
    const started = Date.now();
    await h.client.connect();
    expect(h.client.era).toBe('legacy');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('retries once with a mutual version on -32022 and never falls back', async () => {
    let first = true;
    await using h = await connect({
      era: 'modern',
      handlers: {
        'server/discover': () => {
          if (!first) return { supportedVersions: ['2026-07-28'], capabilities: {} };
          first = false;
          throw new JsonRpcError(-32022, 'Unsupported protocol version', {
            data: { supported: ['2026-07-28'], requested: 'x' },
          });
        },
      },
    });
    await h.client.connect();
    expect(h.client.era).toBe('modern');
    expect(h.fake.methods()).toEqual(['server/discover', 'server/discover']);
  });

  it('fails with both versions named when -32022 lists nothing mutual, without trying initialize', async () => {
    await using h = await connect({ era: 'modern', modernVersions: ['2099-01-01'] });
    const error = await h.client.connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PROTOCOL_VERSION_UNSUPPORTED' });
    expect((error as Error).message).toMatch(/2099-01-01.*2026-07-28/);
    expect(h.fake.methods()).not.toContain('initialize');
  });

  it('uses a cached legacy era without probing, and re-probes when the assumption fails', async () => {
    const store = new Map<string, unknown>();
    const stateStore = {
      get: <T>(ns: string, key: string) =>
        Promise.resolve(store.get(`${ns}/${key}`) as T | undefined),
      set: (ns: string, key: string, value: unknown) =>
        Promise.resolve(void store.set(`${ns}/${key}`, value)),
    };
    {
      await using h = await connect({ era: 'legacy' }, { stateStore, identity: 'srv' });
      await h.client.connect();
    }
    expect(store.get('era/srv')).toEqual({ era: 'legacy', version: '2025-11-25' });
    {
      await using h = await connect({ era: 'legacy' }, { stateStore, identity: 'srv' });
      await h.client.connect();
      expect(h.fake.methods()).toEqual(['initialize', 'notifications/initialized']);
    }
    {
      // The server became modern-only: initialize is refused, the client probes and stays modern.
      await using h = await connect({ era: 'modern' }, { stateStore, identity: 'srv' });
      await h.client.connect();
      expect(h.client.era).toBe('modern');
      expect(h.fake.methods()).toEqual(['initialize', 'server/discover']);
    }
    expect(store.get('era/srv')).toEqual({ era: 'modern', version: '2026-07-28' });
  });

  it('never answered initialize: connect fails at its deadline and sends no cancel for initialize', async () => {
    await using h = await connect(
      { era: 'legacy', handlers: { initialize: () => new Promise(() => {}) } },
      { era: 'legacy', connectTimeoutMs: 200 },
    );
    const error = await h.client.connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'REQUEST_TIMEOUT' });
    expect(h.fake.methods()).toEqual(['initialize']);
  });

  it('pins: a pinned legacy version is proposed as is; a pinned modern era refuses a legacy server', async () => {
    {
      await using h = await connect({ era: 'legacy' }, { protocolVersion: '2025-03-26' });
      await h.client.connect();
      expect(h.client.session?.version).toBe('2025-03-26');
      expect(h.fake.methods()[0]).toBe('initialize');
    }
    {
      await using h = await connect({ era: 'legacy' }, { era: 'modern' });
      await expect(h.client.connect()).rejects.toMatchObject({
        code: 'PROTOCOL_VERSION_UNSUPPORTED',
      });
    }
  });
});
