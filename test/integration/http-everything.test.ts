/**
 * McpClient over the Streamable HTTP transport against the official "everything" server in its
 * streamableHttp mode (a child process listening on a free port, reached on 127.0.0.1): era
 * detection falls back to legacy and a session is held, then the same primitive tests as over
 * stdio (test/helpers/everything-suite.ts: tools, progress, sampling, elicitation and roots,
 * resources and subscriptions, prompts and completion, logging, every message valid), and
 * closing leaves no process or socket.
 */
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/index.js';
import { StreamableHttpTransport } from '../../src/http.js';
import {
  everythingHandlers,
  everythingSuite,
  type EverythingAsked,
} from '../helpers/everything-suite.js';
import { startHttpServer, type HttpServerProcess } from '../helpers/http-fixture-server.js';
import { RecordingTransport } from '../helpers/recording-transport.js';

const require = createRequire(import.meta.url);
const script = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const loopbackOnly = new URL('../fixtures/mcp/lib/loopback-only.mjs', import.meta.url);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

let server: HttpServerProcess;
let client: McpClient;
let transport: StreamableHttpTransport | undefined;
const transports: RecordingTransport[] = [];
const asked: EverythingAsked = { sampled: [], elicited: [] };

beforeAll(async () => {
  // The server takes its port from PORT (no port 0) and says `listening on port <port>`.
  const port = await freePort();
  // Its code binds every interface; the preload keeps it on 127.0.0.1.
  server = await startHttpServer(script, ['streamableHttp'], {
    nodeArgs: ['--import', loopbackOnly.href],
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    readyUrl: (line) =>
      line.includes(`listening on port ${port}`) ? `http://127.0.0.1:${port}/mcp` : undefined,
  });
  client = new McpClient({
    serverName: 'everything-http',
    handlers: everythingHandlers(asked),
    transport: () => {
      transport = new StreamableHttpTransport({ serverName: 'everything-http', url: server.url });
      const recording = new RecordingTransport(transport);
      transports.push(recording);
      return recording;
    },
  });
  await client.connect();
});

afterAll(async () => {
  await client?.close();
  await server?.[Symbol.asyncDispose]();
});

describe('official everything server over Streamable HTTP', () => {
  it('holds a session, and the client set the version header', () => {
    // The client tells the transport the settled version; the server checks the header on every request.
    expect(transport?.protocolVersion).toBe('2025-11-25');
    expect(transport?.hasSession).toBe(true);
    expect(transports).toHaveLength(1);
  });

  everythingSuite(
    () => ({ client, transports, [Symbol.asyncDispose]: () => client.close() }),
    asked,
  );

  // After the suite: the GET stream is open by now. Opened while the header is wrong, it would be
  // refused (400) and given up, and with it every message the server sends there.
  it('is refused with a 400 JSON-RPC error when the protocol version header is unknown', async () => {
    transport?.setProtocolVersion('1999-01-01');
    try {
      await expect(client.listTools()).rejects.toMatchObject({ name: 'JsonRpcError' });
    } finally {
      transport?.setProtocolVersion(client.session?.version);
    }
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
