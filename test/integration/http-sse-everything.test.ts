/**
 * The legacy HTTP+SSE transport (protocol 2024-11-05) against the official "everything" server in
 * its `sse` mode (a child process listening on a free port): a client given the Streamable HTTP
 * transport on the SSE URL falls back to SSE by itself (the server refuses the POSTs), and a client
 * given the SSE transport directly works too; tools, resources and prompts work both ways, and
 * closing leaves no process or socket.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, MemoryStateStore, type Transport } from '../../src/index.js';
import { LegacySseTransport, StreamableHttpTransport } from '../../src/http.js';
import { leakGuard, type LeakGuard } from '../helpers/leak-guard.js';

const require = createRequire(import.meta.url);
const script = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Starts the server in SSE mode and resolves once it says it listens. */
async function startEverything(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script, 'sse'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.resume();
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes(`running on port ${port}`)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`everything exited (${code}): ${stderr}`)));
  });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** Lists and calls what the everything server offers, as any client would. */
async function exercise(client: McpClient): Promise<void> {
  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name)).toContain('echo');
  const echoed = await client.callTool('echo', { message: 'hello over sse' });
  expect(echoed.content).toEqual([{ type: 'text', text: 'Echo: hello over sse' }]);

  const resources = await client.listResources();
  expect(resources.resources.length).toBeGreaterThan(0);
  const uri = resources.resources[0]!.uri;
  const { contents } = await client.readResource(uri);
  expect(contents[0]?.uri).toBe(uri);

  const prompts = await client.listPrompts();
  expect(prompts.prompts.map((p) => p.name)).toContain('args-prompt');
  const prompt = await client.getPrompt('args-prompt', { city: 'Lisbon', state: 'Lisboa' });
  expect(JSON.stringify(prompt.messages)).toContain('Lisbon');
}

let guard: LeakGuard;
let child: ChildProcess;
let sseUrl: string;

beforeAll(async () => {
  guard = leakGuard();
  const port = await freePort();
  child = await startEverything(port);
  guard.trackPid(child.pid);
  sseUrl = `http://127.0.0.1:${port}/sse`;
});

afterAll(async () => {
  if (child !== undefined) await stop(child);
  await guard?.[Symbol.asyncDispose]();
});

describe('official everything server over the legacy HTTP+SSE transport', () => {
  it('is reached through the Streamable HTTP transport by falling back to SSE, then cached', async () => {
    const store = new MemoryStateStore();
    const fallbacks: Transport[] = [];
    const makeClient = () =>
      new McpClient({
        serverName: 'everything-sse',
        stateStore: store,
        identity: 'everything-sse#test',
        transport: () => {
          const primary = new StreamableHttpTransport({
            serverName: 'everything-sse',
            url: sseUrl,
            proxy: false,
          });
          const fallback = primary.fallback.bind(primary);
          primary.fallback = () => {
            const alternative = fallback();
            fallbacks.push(alternative);
            return alternative;
          };
          return primary;
        },
      });

    const client = makeClient();
    try {
      await client.connect();
      expect(fallbacks).toHaveLength(1);
      expect(fallbacks[0]).toBeInstanceOf(LegacySseTransport);
      expect(fallbacks[0]?.state).toBe('open');
      expect((fallbacks[0] as LegacySseTransport).endpoint?.pathname).toBe('/message');
      expect(client.era).toBe('legacy');
      expect(client.session?.serverInfo?.name).toContain('everything');
      expect(await store.get('era', 'everything-sse#test')).toMatchObject({
        era: 'legacy',
        transport: 'sse',
      });
      await exercise(client);
    } finally {
      await client.close();
    }
    expect(fallbacks[0]?.state).toBe('closed');

    // The second connect opens the SSE transport straight away.
    const again = makeClient();
    try {
      await again.connect();
      expect(fallbacks).toHaveLength(2);
      expect(fallbacks[1]?.state).toBe('open');
      const echoed = await again.callTool('echo', { message: 'cached' });
      expect(echoed.content).toEqual([{ type: 'text', text: 'Echo: cached' }]);
    } finally {
      await again.close();
    }
  });

  it('works with the SSE transport given directly (the era probe runs over it too)', async () => {
    let transport: LegacySseTransport | undefined;
    const client = new McpClient({
      serverName: 'everything-sse',
      transport: () => {
        transport = new LegacySseTransport({
          serverName: 'everything-sse',
          url: sseUrl,
          proxy: false,
        });
        return transport;
      },
    });
    try {
      await client.connect();
      expect(client.era).toBe('legacy');
      expect(transport?.state).toBe('open');
      await exercise(client);
    } finally {
      await client.close();
    }
    expect(transport?.state).toBe('closed');
  });

  it('fails connect with CONNECT_FAILED when nothing listens', async () => {
    const port = await freePort();
    const client = new McpClient({
      serverName: 'nobody',
      era: 'legacy',
      transport: () =>
        new LegacySseTransport({ url: `http://127.0.0.1:${port}/sse`, proxy: false }),
    });
    try {
      await expect(client.connect()).rejects.toMatchObject({
        code: 'CONNECT_FAILED',
        details: { errno: 'ECONNREFUSED' },
      });
    } finally {
      await client.close();
    }
  });
});
