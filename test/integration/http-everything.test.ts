/**
 * McpClient over the Streamable HTTP transport against the official "everything" server in its
 * streamableHttp mode (a child process listening on a free port): era detection falls back to
 * legacy, then tools, resources and prompts work, and closing leaves no process or socket.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/index.js';
import { StreamableHttpTransport } from '../../src/http.js';
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

/** Starts the server and resolves once it says it listens. */
async function startEverything(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.resume();
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes(`listening on port ${port}`)) resolve();
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

let guard: LeakGuard;
let child: ChildProcess;
let client: McpClient;
let transport: StreamableHttpTransport | undefined;

beforeAll(async () => {
  guard = leakGuard();
  const port = await freePort();
  child = await startEverything(port);
  guard.trackPid(child.pid);
  client = new McpClient({
    serverName: 'everything-http',
    transport: () => {
      transport = new StreamableHttpTransport({
        serverName: 'everything-http',
        url: `http://127.0.0.1:${port}/mcp`,
      });
      return transport;
    },
  });
  await client.connect();
});

afterAll(async () => {
  await client?.close();
  if (child !== undefined) await stop(child);
  await guard?.[Symbol.asyncDispose]();
});

describe('official everything server over Streamable HTTP', () => {
  it('is detected as legacy, holds a session, and the client set the version header', () => {
    expect(client.era).toBe('legacy');
    // The client tells the transport the settled version; the server checks the header on every request.
    expect(transport?.protocolVersion).toBe('2025-11-25');
    expect(client.session?.version).toBe('2025-11-25');
    expect(client.session?.serverInfo?.name).toContain('everything');
    expect(transport?.hasSession).toBe(true);
  });

  it('is refused with a 400 JSON-RPC error when the protocol version header is unknown', async () => {
    transport?.setProtocolVersion('1999-01-01');
    try {
      await expect(client.listTools()).rejects.toMatchObject({ name: 'JsonRpcError' });
    } finally {
      transport?.setProtocolVersion(client.session?.version);
    }
  });

  it('lists tools and calls echo', async () => {
    const { items } = await client.listTools();
    expect(items.map((t) => t.name)).toContain('echo');
    const result = await client.callTool('echo', { message: 'hello over http' });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: hello over http' }]);
  });

  it('reads a resource', async () => {
    const { contents } = await client.readResource(
      'demo://resource/static/document/architecture.md',
    );
    expect(contents[0]?.uri).toBe('demo://resource/static/document/architecture.md');
  });

  it('gets a prompt with arguments', async () => {
    const result = await client.getPrompt('args-prompt', { city: 'Lisbon', state: 'Lisboa' });
    expect(JSON.stringify(result.messages)).toContain('Lisbon');
  });

  it('fails connect with CONNECT_FAILED when nothing listens', async () => {
    const port = await freePort();
    const refused = new McpClient({
      serverName: 'nobody',
      transport: () => new StreamableHttpTransport({ url: `http://127.0.0.1:${port}/mcp` }),
    });
    try {
      await expect(refused.connect()).rejects.toMatchObject({
        code: 'CONNECT_FAILED',
        details: { errno: 'ECONNREFUSED' },
      });
    } finally {
      await refused.close();
    }
  });

  it('closes with no socket left and the session deleted', async () => {
    await client.close();
    expect(transport?.state).toBe('closed');
    expect(transport?.hasSession).toBe(false);
  });
});
