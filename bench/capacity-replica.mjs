// One gateway replica for the capacity benchmark, in a process of its own (forked by
// bench/capacity-worker.mjs, which talks to it over the IPC channel): an McpHost on `backends`
// backend servers, and `createGateway({ host }).listen()` serving it over Streamable HTTP on
// 127.0.0.1 (no token; sessions and session-less requests unbounded, so the load, not a limit,
// decides).
//
//   spec: { kind: 'memory' | 'stdio', backends, views }
//
// memory: each backend is mcp-host/testing's FakeMcpServer (legacy era) with three tools, on
//   linked in-memory transports in this process; all are made (and started) before the host, so
//   the memory the host adds is measured apart from theirs.
// stdio: each backend is bench/echo-server.mjs, a process of its own spawned by the host.
// views: `views` named views (`view_0000`, ...), each on one backend (round robin), served by the
//   listener at `/mcp/<view>`.
//
// Once listening it sends { type: 'ready', url, pid, startMs, ready, tools, memory: { base,
// backends, host, gateway }, childPids }: memory (after a full GC) once warm, once the backends
// exist (in-memory only), once the host is started, once the gateway listens. Then it answers
// { type: 'memory' } with { type: 'memory', memory, childRssBytes } and { type: 'close' } by
// closing everything and exiting.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { McpHost } from 'mcp-host';
import { createGateway } from 'mcp-host/gateway';
import { StdioTransport } from 'mcp-host/stdio';
import { FakeMcpServer, createLinkedTransports } from 'mcp-host/testing';
import { backendName, viewName } from './lib/capacity-plan.mjs';
import { gc } from './lib/gc.mjs';

const ECHO_SERVER = fileURLToPath(new URL('./echo-server.mjs', import.meta.url));
const CLIENT_INFO = { name: 'mcp-host-bench', version: '1.0.0' };
const SCHEMA = {
  type: 'object',
  properties: { text: { type: 'string', description: 'What to send back' } },
  required: ['text'],
};
const textResult = (text) => ({ content: [{ type: 'text', text }] });
/** The three tools of every in-memory backend (the stdio echo server has its one `echo`). */
const TOOLS = [
  {
    name: 'echo',
    description: 'Returns its text argument.',
    inputSchema: SCHEMA,
    handler: (args) => textResult(String(args.text)),
  },
  {
    name: 'upper',
    description: 'Returns its text argument in upper case.',
    inputSchema: SCHEMA,
    handler: (args) => textResult(String(args.text).toUpperCase()),
  },
  {
    name: 'length',
    description: 'Returns the length of its text argument.',
    inputSchema: SCHEMA,
    handler: (args) => textResult(String(String(args.text).length)),
  },
];

function memory() {
  gc();
  gc();
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return { rss, heapUsed, external, arrayBuffers };
}

/** RSS of a process from /proc (bytes), or 0 where it cannot be read. */
function rssOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return kib === null ? 0 : Number(kib[1]) * 1024;
  } catch {
    return 0;
  }
}

/** A fake backend with the three tools on linked in-memory transports; returns its server config. */
function inMemoryBackend(name, fakes) {
  const [clientEnd, serverEnd] = createLinkedTransports();
  const fake = new FakeMcpServer(serverEnd, { era: 'legacy', tools: TOOLS });
  // The fake records every request it serves; keep that list from growing over the run.
  fake.received.push = () => 0;
  void fake.start();
  fakes.push(fake);
  return {
    name,
    transport: () => clientEnd,
    client: { era: 'legacy', clientInfo: CLIENT_INFO },
  };
}

function stdioBackend(name) {
  return {
    name,
    transport: () =>
      new StdioTransport({ command: process.execPath, args: [ECHO_SERVER], serverName: name }),
    client: { era: 'legacy', clientInfo: CLIENT_INFO },
  };
}

const LISTEN = {
  auth: 'none',
  maxSessions: 1_000_000,
  maxStatelessRequests: 1_000_000,
};

/**
 * Loads and runs once everything the measured part uses (a host, its first listing and schema
 * checks, a gateway listening, one call through it), then closes it, so the base line has it.
 */
async function warmUp() {
  const fakes = [];
  const host = new McpHost({ servers: [inMemoryBackend('warm', fakes)] });
  await host.start();
  const gateway = createGateway({ host });
  const listener = await gateway.listen(LISTEN);
  await host.callTool(host.tools()[0].name, { text: 'warm' });
  await listener.close();
  await gateway.close();
  await host.close();
  await Promise.all(fakes.map((fake) => fake.close()));
}

async function main(spec) {
  await warmUp();
  const base = memory();
  const fakes = [];
  const servers = [];
  for (let i = 0; i < spec.backends; i++) {
    servers.push(
      spec.kind === 'stdio' ? stdioBackend(backendName(i)) : inMemoryBackend(backendName(i), fakes),
    );
  }
  const backends = memory();
  const views = Object.fromEntries(
    Array.from({ length: spec.views ?? 0 }, (_, i) => [
      viewName(i),
      { servers: [backendName(i % spec.backends)] },
    ]),
  );
  const host = new McpHost({ servers, views });
  const t0 = performance.now();
  const started = await host.start();
  const startMs = performance.now() - t0;
  const statuses = Array.isArray(started) ? started : started.servers;
  const tools = host.tools().length;
  const hostMemory = memory();
  const gateway = createGateway({ host });
  const listener = await gateway.listen(LISTEN);
  const childPids = statuses.map((s) => s.pid).filter((pid) => pid !== undefined);
  process.send({
    type: 'ready',
    url: listener.url,
    pid: process.pid,
    startMs,
    ready: statuses.filter((s) => s.state === 'ready').length,
    tools,
    childPids,
    memory: { base, backends, host: hostMemory, gateway: memory() },
  });
  let closing;
  const close = () =>
    (closing ??= (async () => {
      await listener.close();
      await gateway.close();
      await host.close();
      await Promise.all(fakes.map((fake) => fake.close()));
      if (process.connected) process.disconnect();
    })());
  process.on('message', (message) => {
    if (message.type === 'memory') {
      process.send({
        type: 'memory',
        memory: memory(),
        sessions: listener.sessionCount,
        childRssBytes: childPids.map(rssOf),
      });
    } else if (message.type === 'close') {
      void close();
    }
  });
  // The worker went away without a word (it failed): close too, stdio backends included.
  process.once('disconnect', () => void close());
}

if (process.send !== undefined) await main(JSON.parse(process.argv[2] ?? '{}'));
