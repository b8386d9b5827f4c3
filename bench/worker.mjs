// Measures one (implementation, scenario) in a fresh process: connect, check, warm up, then time
// `calls` calls of the echo tool with `inFlight` requests outstanding (a closed loop: each
// response sends the next request). Prints one JSON line with the figures.
//
//   node bench/worker.mjs '{"impl":"ours","inFlight":16,"calls":20000,"warmup":2000}'
//   node bench/worker.mjs '{"impl":"ours","transport":"http","inFlight":256,"calls":20000,"warmup":5000}'
//
// stdio clients (bench/clients/) spawn bench/echo-server.mjs themselves; for HTTP clients
// (bench/clients/http/) the worker starts bench/http-echo-server.mjs, passes its URL, and stops it
// after the client has closed.
import { fileURLToPath } from 'node:url';
import { closedLoop, startHttpEcho } from './lib/load.mjs';
import { processCpuMicros } from './lib/server-cpu.mjs';
import { quantile } from './lib/stats.mjs';

const SERVER_PATH = fileURLToPath(new URL('./echo-server.mjs', import.meta.url));
const ECHO_TEXT = 'hello from the mcp-host benchmark';
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

const spec = JSON.parse(process.argv[2] ?? '{}');
const http = spec.transport === 'http';
const { connect } = await import(`./clients/${http ? 'http/' : ''}${spec.impl}.mjs`);
const httpServer = http ? await startHttpEcho(spec.sse === true) : undefined;
const connection = http
  ? {
      ...(await connect({ url: httpServer.url, maxMessageBytes: MAX_MESSAGE_BYTES })),
      pid: httpServer.pid,
    }
  : await connect({
      command: process.execPath,
      args: [SERVER_PATH],
      maxMessageBytes: MAX_MESSAGE_BYTES,
      largeResults: spec.size !== undefined,
    });

try {
  const toolArgs = spec.size === undefined ? { text: ECHO_TEXT } : { size: spec.size };
  const expectedLength = spec.size ?? ECHO_TEXT.length;
  const check = await connection.call(toolArgs);
  const text = check?.content?.[0]?.text;
  if (typeof text !== 'string' || text.length !== expectedLength) {
    throw new Error(`unexpected echo result: ${JSON.stringify(check).slice(0, 200)}`);
  }

  await closedLoop(connection.call, toolArgs, spec.inFlight, spec.warmup);
  const { gc } = await import('./lib/gc.mjs');
  gc();

  // The client's CPU is the whole process's (every thread: the main thread, GC helpers, the JIT)
  // from the first timed call until the garbage those calls made is collected: the full GC after
  // the last response and whatever the event loop still had to do then are part of the cost.
  const serverCpu0 = processCpuMicros(connection.pid);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const latencies = await closedLoop(connection.call, toolArgs, spec.inFlight, spec.calls);
  const elapsedMs = performance.now() - t0;
  const serverCpu1 = processCpuMicros(connection.pid);
  await new Promise((resolve) => setImmediate(resolve));
  const cpuBeforeGc = process.cpuUsage(cpu0);
  gc();
  const cpu = process.cpuUsage(cpu0);

  const clientCpuMicros = cpu.user + cpu.system;
  const serverCpuMicros =
    serverCpu0 === undefined || serverCpu1 === undefined ? null : serverCpu1 - serverCpu0;
  const result = {
    impl: spec.impl,
    scenario: spec.scenario,
    transport: http ? 'http' : 'stdio',
    calls: spec.calls,
    inFlight: spec.inFlight,
    elapsedMs,
    callsPerSec: (spec.calls * 1000) / elapsedMs,
    p50Us: quantile(latencies, 0.5) * 1000,
    p99Us: quantile(latencies, 0.99) * 1000,
    cpuUsPerCall: clientCpuMicros / spec.calls,
    // The part of it that was the final full GC (garbage of the timed calls still in the heap).
    gcUsPerCall: (clientCpuMicros - cpuBeforeGc.user - cpuBeforeGc.system) / spec.calls,
    clientCpuShare: clientCpuMicros / 1000 / elapsedMs,
    // The echo server's CPU (from /proc, 10 ms resolution): it must stay well below one core.
    serverCpuUsPerCall: serverCpuMicros === null ? null : serverCpuMicros / spec.calls,
    serverCoreShare: serverCpuMicros === null ? null : serverCpuMicros / 1000 / elapsedMs,
    serverPid: connection.pid ?? null,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await connection.close();
  await httpServer?.stop();
}
