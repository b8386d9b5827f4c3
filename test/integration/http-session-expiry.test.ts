/**
 * An upstream Streamable HTTP server that forgets its sessions: the official v1 SDK fixture
 * (legacy-sdk-server.mjs --http=stateful) stopped and started again on the same port, so every
 * request carrying the old `Mcp-Session-Id` gets the SDK's 404. The host's callers notice nothing:
 * the client initialises a new session (once, however many calls failed at once) and sends each
 * failed request again, the server is never marked failed or restarted, and notifications reach
 * the host on the new session's GET stream.
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { McpHost, McpHostError } from '../../src/index.js';
import { startHttpServer, type HttpServerProcess } from '../helpers/http-fixture-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';

const portOf = (url: string): string => new URL(url).port;

/** The v1 SDK fixture over HTTP with sessions, on `port` (default: a free one). */
function legacyOverHttp(port?: string): Promise<HttpServerProcess> {
  return startHttpServer(mcpFixtures.legacySdk, [
    '--http=stateful',
    ...(port === undefined ? [] : [`--port=${port}`]),
  ]);
}

const textOf = (result: { content: readonly unknown[] }): string =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

describe('an upstream HTTP server that forgot its sessions (restarted on the same port)', () => {
  it('is re-initialised under the calls: each succeeds, the server is never restarted', async () => {
    await using _guard = leakGuard();
    const first = await legacyOverHttp();
    const url = first.url;
    await using host = new McpHost({
      servers: [{ name: 'legacy', transport: { type: 'http', url } }],
    });
    await host.start();
    const before = await host.callTool('mcp__legacy__echo', { message: 'before' });
    expect(textOf(before)).toContain('before');

    await first[Symbol.asyncDispose]();
    await using _second = await legacyOverHttp(portOf(url));

    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, n) => host.callTool('mcp__legacy__echo', { message: `m${n}` })),
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(results.map(textOf)).toEqual(
      Array.from({ length: 6 }, (_, n) => expect.stringContaining(`m${n}`) as unknown),
    );
    const status = host.status().find((s) => s.name === 'legacy')!;
    expect(status.state).toBe('ready');
    expect(status.restartCount).toBe(0);
  });

  it("hears the new session's notifications: list_changed reaches the host again", async () => {
    await using _guard = leakGuard();
    const first = await legacyOverHttp();
    const url = first.url;
    await using host = new McpHost({
      servers: [{ name: 'legacy', transport: { type: 'http', url } }],
    });
    await host.start();
    expect(host.tools().map((t) => t.name)).not.toContain('mcp__legacy__extra');

    await first[Symbol.asyncDispose]();
    await using second = await legacyOverHttp(portOf(url));

    const changed = new Promise<void>((resolve) => {
      const subscription = host.onToolsChanged(() => {
        if (!host.tools().some((t) => t.name === 'mcp__legacy__extra')) return;
        subscription.dispose();
        resolve();
      });
    });
    // The first call re-initialises; the v1 SDK drops a notification sent before the new
    // session's GET stream is open, so the toggle waits for that stream.
    await host.callTool('mcp__legacy__echo', { message: 'again' });
    await second.waitForRecord('get-stream', (record) => record.status === 200);
    const toggled = await host.callTool('mcp__legacy__toggle-tool', {});
    expect(textOf(toggled)).toBe('extra on');
    await changed;
    // The old session's stream stopped with it: no second GET competed for the new session's.
    expect(second.records('get-stream')).toEqual([{ event: 'get-stream', status: 200 }]);
    expect(host.status().find((s) => s.name === 'legacy')!.restartCount).toBe(0);
  });

  it('fails the call with a typed SESSION_EXPIRED when the new session cannot be opened', async () => {
    await using _guard = leakGuard();
    const first = await legacyOverHttp();
    const url = first.url;
    await using host = new McpHost({
      servers: [{ name: 'legacy', transport: { type: 'http', url } }],
    });
    await host.start();
    await first[Symbol.asyncDispose]();
    // In its place, a server that knows no session and refuses to open one.
    const seen: string[] = [];
    const refusing = createServer((req, res) => {
      seen.push(`${req.method} ${req.headers['mcp-session-id'] === undefined ? 'new' : 'old'}`);
      req.resume();
      res.writeHead(req.headers['mcp-session-id'] === undefined ? 503 : 404).end('no');
    });
    refusing.listen(Number(portOf(url)), '127.0.0.1');
    await once(refusing, 'listening');
    try {
      const started = Date.now();
      const error = await host.callTool('mcp__legacy__echo', { message: 'x' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(error).toBeInstanceOf(McpHostError);
      expect(error).toMatchObject({ code: 'SESSION_EXPIRED', serverName: 'legacy' });
      expect((error as McpHostError).message).toContain('initialising a new one failed');
      expect(seen).toContain('POST new');
    } finally {
      refusing.closeAllConnections();
      refusing.close();
      await once(refusing, 'close');
    }
  });
});
