// Measures one (implementation, scenario) in a fresh process: connect, check, warm up, then time
// `calls` calls of the echo tool with `inFlight` requests outstanding (a closed loop: each
// response sends the next request). Prints one JSON line with the figures.
//
//   node bench/worker.mjs '{"impl":"ours","inFlight":16,"calls":20000,"warmup":2000}'
import { fileURLToPath } from 'node:url';
import { processCpuMicros } from './lib/server-cpu.mjs';
import { quantile } from './lib/stats.mjs';

const SERVER_PATH = fileURLToPath(new URL('./echo-server.mjs', import.meta.url));
const ECHO_TEXT = 'hello from the mcp-host benchmark';

const spec = JSON.parse(process.argv[2] ?? '{}');
const { connect } = await import(`./clients/${spec.impl}.mjs`);
const connection = await connect({
  command: process.execPath,
  args: [SERVER_PATH],
  maxMessageBytes: 64 * 1024 * 1024,
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

  const serverCpu0 = processCpuMicros(connection.pid);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const latencies = await closedLoop(connection.call, toolArgs, spec.inFlight, spec.calls);
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const serverCpu1 = processCpuMicros(connection.pid);

  const clientCpuMicros = cpu.user + cpu.system;
  const serverCpuMicros =
    serverCpu0 === undefined || serverCpu1 === undefined ? null : serverCpu1 - serverCpu0;
  const result = {
    impl: spec.impl,
    scenario: spec.scenario,
    calls: spec.calls,
    inFlight: spec.inFlight,
    elapsedMs,
    callsPerSec: (spec.calls * 1000) / elapsedMs,
    p50Us: quantile(latencies, 0.5) * 1000,
    p99Us: quantile(latencies, 0.99) * 1000,
    cpuUsPerCall: clientCpuMicros / spec.calls,
    clientCpuShare: clientCpuMicros / 1000 / elapsedMs,
    // The echo server's CPU (from /proc, 10 ms resolution): it must stay well below one core.
    serverCpuUsPerCall: serverCpuMicros === null ? null : serverCpuMicros / spec.calls,
    serverCoreShare: serverCpuMicros === null ? null : serverCpuMicros / 1000 / elapsedMs,
    serverPid: connection.pid ?? null,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await connection.close();
}

/** Runs `total` calls keeping `inFlight` outstanding; returns each call's latency in ms. */
async function closedLoop(call, toolArgs, inFlight, total) {
  const latencies = new Float64Array(total);
  let issued = 0;
  const lane = async () => {
    while (issued < total) {
      const index = issued++;
      const start = performance.now();
      await call(toolArgs);
      latencies[index] = performance.now() - start;
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, lane));
  return latencies;
}
