// Startup costs of one implementation, in a fresh process. Prints one JSON line.
//
//   node bench/startup-probe.mjs import <impl>    time to import the client's modules
//   node bench/startup-probe.mjs list <impl>      import + connect + list the tools: wall and CPU
//                                                 time, and the longest event-loop block while listing
//   node bench/startup-probe.mjs memory <impl>    memory after import, connect and a listing
//   node bench/startup-probe.mjs memory20 <impl>  the same with 20 servers connected
//
// `impl` is one of config.mjs's implementations, or none (a bare node process: the baseline
// memory is read against). Import time covers what a program imports to talk to a stdio server:
// ours the root and stdio entries, the SDK its client and stdio transport, raw its hand-written
// client module (which imports node:child_process). Memory is read the same way for every
// implementation, after a full garbage collection. For 20 servers, `host` is one McpHost with 20
// servers and the others 20 clients side by side.
import { fileURLToPath } from 'node:url';
import { IMPORT_ENTRY_POINTS } from './config.mjs';

const SERVER_PATH = fileURLToPath(new URL('./echo-server.mjs', import.meta.url));
const MODES = ['import', 'list', 'memory', 'memory20'];

const [mode, impl] = process.argv.slice(2);
const entryPoints = impl === 'none' ? [] : IMPORT_ENTRY_POINTS[impl];
if (entryPoints === undefined || !MODES.includes(mode)) {
  throw new Error(
    `usage: startup-probe.mjs ${MODES.join('|')} none|<an implementation of config.mjs>`,
  );
}

const emit = (figures) => process.stdout.write(`${JSON.stringify({ impl, ...figures })}\n`);

if (mode === 'import') {
  const start = performance.now();
  for (const specifier of entryPoints) await import(specifier);
  const importMs = performance.now() - start;
  emit({ importMs });
} else if (mode === 'list') {
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const { connect } = await import(`./clients/${impl}.mjs`);
  const connection = await connect({ command: process.execPath, args: [SERVER_PATH] });
  const connectedMs = performance.now() - start;
  const blocks = watchEventLoop();
  const tools = await connection.list();
  const maxBlockMs = blocks.stop();
  const listMs = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  if (tools.length !== 1) throw new Error(`expected the echo tool, got ${JSON.stringify(tools)}`);
  emit({
    listMs,
    connectedMs,
    listCpuMs: (cpu.user + cpu.system) / 1000,
    // The longest the event loop was blocked while listing.
    maxBlockMs,
    serverPid: connection.pid ?? null,
  });
  await connection.close();
} else {
  const count = mode === 'memory20' ? 20 : 1;
  const connections = [];
  if (impl === 'host' && count > 1) {
    connections.push(await connectHost(count));
  } else if (impl !== 'none') {
    const { connect } = await import(`./clients/${impl}.mjs`);
    const all = Array.from({ length: count }, () =>
      connect({ command: process.execPath, args: [SERVER_PATH] }),
    );
    connections.push(...(await Promise.all(all)));
  }
  // Connected and listed: what every host does first. No call: a host's first call loads the
  // JSON Schema validator to check its arguments (see bench/README.md), a cost of its own.
  for (const connection of connections) await connection.list();
  const { gc } = await import('./lib/gc.mjs');
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  const { rss, heapUsed } = process.memoryUsage();
  emit({
    rss,
    heapUsed,
    servers: count,
    serverPids: connections.flatMap((c) => c.pids ?? [c.pid]),
  });
  await Promise.all(connections.map((connection) => connection.close()));
}

/** One McpHost with `count` echo servers; calls and lists reach each of them. */
async function connectHost(count) {
  const { McpHost } = await import('mcp-host');
  const host = new McpHost({
    servers: Array.from({ length: count }, (_, i) => ({
      name: `echo${i}`,
      transport: { type: 'stdio', command: process.execPath, args: [SERVER_PATH] },
      client: { era: 'legacy' },
    })),
  });
  await host.start();
  const tools = host.tools();
  return {
    pids: host.status().map((status) => status.pid),
    list: async () => host.tools(),
    call: (args) => Promise.all(tools.map((tool) => host.callTool(tool.name, args))),
    close: () => host.close(),
  };
}

/**
 * Measures the longest stretch the event loop is blocked: a chain of `setImmediate`s, each noting
 * the time since the previous one ran (the loop turns between them, so a gap is a block).
 */
function watchEventLoop() {
  let last = performance.now();
  let max = 0;
  let running = true;
  const tick = () => {
    const now = performance.now();
    max = Math.max(max, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop: () => {
      running = false;
      return Math.max(max, performance.now() - last);
    },
  };
}
