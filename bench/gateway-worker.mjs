// The gateway benchmark (issue 17), one (transport, path, scenario) in a fresh process: an
// McpClient calls the echo tool either directly on the echo server or through `mcp-host gateway
// serve` (the built CLI, a process of its own, with the echo server as its one backend), keeping
// `inFlight` calls outstanding; prints one JSON line with the figures.
//
//   node bench/gateway-worker.mjs '{"transport":"stdio","path":"gateway","inFlight":256,"calls":20000,"warmup":5000}'
//
// stdio: the client spawns bench/echo-server.mjs (direct) or the gateway, which spawns it.
// http: bench/http-echo-server.mjs is the backend for both; the gateway reaches it over HTTP and
//   serves over HTTP itself (`--transport http --port 0 --no-auth`); the worker reads its URL from
//   its `mcp-host: gateway listening on <url>` line. A build whose CLI has no HTTP gateway prints
//   `{"unavailable": "<why>"}` instead, and the report leaves the HTTP rows out.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpClient } from 'mcp-host/client';
import { StdioTransport } from 'mcp-host/stdio';
import { StreamableHttpTransport } from 'mcp-host/http';
import { INITIALIZE_PARAMS } from './clients/handshake.mjs';
import { closedLoop, startHttpEcho } from './lib/load.mjs';
import { processCpuMicros } from './lib/server-cpu.mjs';
import { quantile } from './lib/stats.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const ECHO_SERVER = here('./echo-server.mjs');
const CLI = here('../dist/cli.js');
const ECHO_TEXT = 'hello from the mcp-host benchmark';
const LISTENING = /^mcp-host: gateway listening on (http:\/\/\S+)$/m;
const START_TIMEOUT_MS = 30_000;

const spec = JSON.parse(process.argv[2] ?? '{}');
const http = spec.transport === 'http';
const throughGateway = spec.path === 'gateway';
const scratch = mkdtempSync(join(tmpdir(), 'mcp-host-bench-gateway-'));
const stops = [];

try {
  const backend = http ? await startHttpEcho() : undefined;
  if (backend !== undefined) stops.push(backend.stop);
  const connection = throughGateway
    ? await connectThroughGateway(backend?.url)
    : await connectDirect(backend?.url);
  if (connection.unavailable !== undefined) {
    process.stdout.write(`${JSON.stringify({ ...spec, unavailable: connection.unavailable })}\n`);
  } else {
    stops.unshift(connection.close);
    await measure(connection, backend?.pid);
  }
} finally {
  for (const stop of stops) await stop();
  rmSync(scratch, { recursive: true, force: true });
}

async function measure(connection, backendPid) {
  const toolArgs = { text: ECHO_TEXT };
  const check = await connection.call(toolArgs);
  if (check?.content?.[0]?.text !== ECHO_TEXT)
    throw new Error(`unexpected echo result: ${JSON.stringify(check).slice(0, 200)}`);
  await closedLoop(connection.call, toolArgs, spec.inFlight, spec.warmup);
  const { gc } = await import('./lib/gc.mjs');
  gc();
  const gateway0 = processCpuMicros(connection.gatewayPid);
  const backend0 = processCpuMicros(backendPid ?? connection.serverPid);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const latencies = await closedLoop(connection.call, toolArgs, spec.inFlight, spec.calls);
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const gateway1 = processCpuMicros(connection.gatewayPid);
  const backend1 = processCpuMicros(backendPid ?? connection.serverPid);
  const perCall = (a, b) => (a === undefined || b === undefined ? null : (b - a) / spec.calls);
  process.stdout.write(
    `${JSON.stringify({
      ...spec,
      elapsedMs,
      callsPerSec: (spec.calls * 1000) / elapsedMs,
      p50Us: quantile(latencies, 0.5) * 1000,
      p99Us: quantile(latencies, 0.99) * 1000,
      clientCpuUsPerCall: (cpu.user + cpu.system) / spec.calls,
      // The gateway process's CPU (from /proc, 10 ms resolution), through the gateway only.
      gatewayCpuUsPerCall: perCall(gateway0, gateway1),
      backendCpuUsPerCall: perCall(backend0, backend1),
      pids: [connection.gatewayPid, connection.serverPid].filter((pid) => pid !== undefined),
    })}\n`,
  );
}

/** McpClient straight to the echo server (stdio: spawned by its transport). */
async function connectDirect(url) {
  const transport = () =>
    url === undefined
      ? new StdioTransport({ command: process.execPath, args: [ECHO_SERVER], serverName: 'echo' })
      : new StreamableHttpTransport({ url, serverName: 'echo' });
  const client = await connectClient(transport);
  return {
    serverPid: client.pid,
    call: (toolArgs) => client.callTool('echo', toolArgs),
    close: () => client.close(),
  };
}

/** McpClient to `mcp-host gateway serve` over a config whose one server is the echo server. */
async function connectThroughGateway(url) {
  const config = join(scratch, 'mcp.json');
  const backend = url === undefined ? { command: process.execPath, args: [ECHO_SERVER] } : { url };
  writeFileSync(config, JSON.stringify({ servers: { echo: backend } }));
  const cliArgs = [CLI, '--quiet', '--config', config, 'gateway', 'serve'];
  if (url === undefined) {
    const client = await connectClient(
      () => new StdioTransport({ command: process.execPath, args: cliArgs, serverName: 'gateway' }),
    );
    return {
      gatewayPid: client.pid,
      call: (toolArgs) => client.callTool('mcp__echo__echo', toolArgs),
      close: () => client.close(),
    };
  }
  const gateway = await startHttpGateway([
    ...cliArgs,
    '--transport',
    'http',
    '--port',
    '0',
    '--no-auth',
  ]);
  if (gateway.unavailable !== undefined) return gateway;
  stops.push(gateway.stop);
  const client = await connectClient(
    () => new StreamableHttpTransport({ url: gateway.url, serverName: 'gateway' }),
  );
  return {
    gatewayPid: gateway.pid,
    call: (toolArgs) => client.callTool('mcp__echo__echo', toolArgs),
    close: () => client.close(),
  };
}

async function connectClient(transport) {
  const client = new McpClient({
    serverName: 'echo',
    transport,
    era: 'legacy',
    clientInfo: INITIALIZE_PARAMS.clientInfo,
  });
  await client.connect();
  return client;
}

/**
 * `node dist/cli.js ... gateway serve --transport http`: resolves once it says where it listens,
 * or to `{ unavailable }` when it exits first (a build without the HTTP gateway refuses the option).
 */
function startHttpGateway(args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the HTTP gateway did not say where it listens:\n${err}`));
    }, START_TIMEOUT_MS);
    child.stderr.setEncoding('utf8').on('data', (text) => {
      err += text;
      const found = LISTENING.exec(err);
      if (found === null) return;
      clearTimeout(timer);
      resolve({
        url: found[1],
        pid: child.pid,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      resolve({
        unavailable: `gateway serve --transport http exited (${code}): ${firstLine(err)}`,
      });
    });
  });
}

/** The first line of what it said (its error), without a trailing usage hint. */
function firstLine(text) {
  return text.trim().split('\n')[0] ?? '';
}
