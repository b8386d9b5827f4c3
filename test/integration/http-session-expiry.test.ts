/**
 * An upstream Streamable HTTP server that forgets its sessions: the official v1 SDK fixture
 * (legacy-sdk-server.mjs --http=stateful) stopped and started again on the same port, so every
 * request carrying the old `Mcp-Session-Id` gets the SDK's 404. The host's callers notice nothing:
 * the client initialises a new session (once, however many calls failed at once) and sends each
 * failed request again, the server is never marked failed or restarted, and notifications reach
 * the host on the new session's GET stream. Through the gateway (`mcp-host gateway serve`, the
 * built CLI, over stdio; `gateway.listen()` over HTTP) the official v1 SDK client notices nothing
 * either.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway.js';
import { McpHost, McpHostError } from '../../src/index.js';
import { startHttpServer, type HttpServerProcess } from '../helpers/http-fixture-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';
import { cliEnv, cliPath, ensureBuiltCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

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

describe('through the gateway', () => {
  beforeAll(() => ensureBuiltCli());

  it('an SDK client of `gateway serve` notices nothing when the backend forgets its sessions', async () => {
    await using guard = leakGuard();
    using dir = tempDir();
    const first = await legacyOverHttp();
    const url = first.url;
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(file, `servers:\n  legacy:\n    url: ${url}\n`);
    const client = new Client({ name: 'expiry-test', version: '1.0.0' });
    // Closed in this order: the gateway (the client's child) before the backend.
    await using backends = {
      second: undefined as HttpServerProcess | undefined,
      async [Symbol.asyncDispose]() {
        await client.close();
        await this.second?.[Symbol.asyncDispose]();
      },
    };
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, '--config', file, 'gateway', 'serve'],
      cwd: dir.path,
      env: cliEnv() as Record<string, string>,
      stderr: 'ignore',
    });
    await client.connect(transport);
    guard.trackPid(transport.pid ?? undefined);
    const call = (message: string) =>
      client.callTool({ name: 'mcp__legacy__echo', arguments: { message } });
    expect(JSON.stringify((await call('before')).content)).toContain('before');

    await first[Symbol.asyncDispose]();
    const second = (backends.second = await legacyOverHttp(portOf(url)));

    const after = await Promise.all([call('one'), call('two'), call('three')]);
    expect(after.map((r) => r.isError ?? false)).toEqual([false, false, false]);
    expect(JSON.stringify(after.map((r) => r.content))).toMatch(/one.*two.*three/);

    // The backend's notifications on its new session reach the gateway's client.
    await second.waitForRecord('get-stream', (record) => record.status === 200);
    const listed = new Promise<void>((resolve) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
    });
    await client.callTool({ name: 'mcp__legacy__toggle-tool', arguments: {} });
    await listed;
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('mcp__legacy__extra');
  });

  it('an SDK client of the gateway over HTTP notices nothing either', async () => {
    await using _guard = leakGuard();
    const first = await legacyOverHttp();
    const url = first.url;
    await using host = new McpHost({
      servers: [{ name: 'legacy', transport: { type: 'http', url } }],
    });
    await host.start();
    await using gateway = createGateway({ host });
    const token = 'session-expiry-test-token';
    const listener = await gateway.listen({ auth: { bearerToken: token } });
    const client = new Client({ name: 'expiry-test', version: '1.0.0' });
    // Closed in this order: the client, then the backend (the gateway and host after).
    await using backends = {
      second: undefined as HttpServerProcess | undefined,
      async [Symbol.asyncDispose]() {
        await client.close();
        await this.second?.[Symbol.asyncDispose]();
      },
    };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(listener.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    const call = (message: string) =>
      client.callTool({ name: 'mcp__legacy__echo', arguments: { message } });
    expect(JSON.stringify((await call('before')).content)).toContain('before');

    await first[Symbol.asyncDispose]();
    const second = (backends.second = await legacyOverHttp(portOf(url)));

    const after = await Promise.all([call('one'), call('two'), call('three')]);
    expect(after.map((r) => r.isError ?? false)).toEqual([false, false, false]);
    expect(JSON.stringify(after.map((r) => r.content))).toMatch(/one.*two.*three/);

    await second.waitForRecord('get-stream', (record) => record.status === 200);
    const listed = new Promise<void>((resolve) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
    });
    await client.callTool({ name: 'mcp__legacy__toggle-tool', arguments: {} });
    await listed;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain(
      'mcp__legacy__extra',
    );
    expect(host.status().find((s) => s.name === 'legacy')!.restartCount).toBe(0);
  });
});
