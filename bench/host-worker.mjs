// The host benchmarks (issue 5), each in a fresh process; prints one JSON line with the figures.
//
//   node bench/host-worker.mjs '{"mode":"routing","calls":20000,"warmup":5000}'
//   node bench/host-worker.mjs '{"mode":"listing","servers":20,"toolsPerServer":50}'
//   node bench/host-worker.mjs '{"mode":"connect","servers":20,"order":"singles-first"}'
//
// routing: McpClient.callTool and McpHost.callTool (defaults, and with validateArguments: false)
//   on identical in-memory FakeMcpServers in this one process, one call at a time, the three
//   alternating (order rotated every call); latency of every call.
// listing: 20 in-memory servers x 50 tools (hostile names among them): host.start() to ready,
//   host.tools() cold and warm, assignNames() of the 1,000 (server, tool) pairs.
// connect: 20 stdio echo servers (bench/echo-server.mjs) through StdioTransport: each connected
//   alone in a fresh host (start() to ready, then closed), against one host starting all 20.
import { fileURLToPath } from 'node:url';
import {
  McpClient,
  McpHost,
  assignNames,
  isProviderSafeName,
  startedStatuses,
} from './lib/mcp-host.mjs';
import { StdioTransport } from 'mcp-host/stdio';
import { FakeMcpServer, createLinkedTransports } from 'mcp-host/testing';
import { isRunning } from './lib/child.mjs';
import { gc } from './lib/gc.mjs';
import { quantile } from './lib/stats.mjs';

const SERVER_PATH = fileURLToPath(new URL('./echo-server.mjs', import.meta.url));
const CLIENT_INFO = { name: 'mcp-host-bench', version: '1.0.0' };

// ---- routing --------------------------------------------------------------------------------------

const ECHO_TOOL = {
  name: 'echo',
  description: 'Returns its text argument.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
  },
  handler: (args) => ({ content: [{ type: 'text', text: String(args.text) }] }),
};

/** One fresh in-memory FakeMcpServer (legacy era) with the echo tool; returns the client's end. */
function echoServerTransport(servers, tools = [ECHO_TOOL]) {
  const [clientEnd, serverEnd] = createLinkedTransports();
  const server = new FakeMcpServer(serverEnd, { era: 'legacy', tools });
  // The fake server records every request; keep that list from growing over the run.
  server.received.push = () => 0;
  servers.push(server);
  void server.start();
  return clientEnd;
}

async function routing({ calls, warmup, profileOnly }) {
  const servers = [];
  const client = new McpClient({
    serverName: 'echo',
    transport: () => echoServerTransport(servers),
    era: 'legacy',
    clientInfo: CLIENT_INFO,
  });
  await client.connect();
  const hostOf = (options) =>
    new McpHost({
      ...options,
      servers: [
        {
          name: 'echo',
          transport: () => echoServerTransport(servers),
          client: { era: 'legacy', clientInfo: CLIENT_INFO },
        },
      ],
    });
  const host = hostOf({});
  const hostNoValidate = hostOf({ validateArguments: false });
  await Promise.all([host.start(), hostNoValidate.start()]);
  const exposed = host.tools()[0].name;
  const args = { text: 'hello from the mcp-host benchmark' };

  const paths = {
    client: () => client.callTool('echo', args),
    host: () => host.callTool(exposed, args),
    hostNoValidate: () => hostNoValidate.callTool(exposed, args),
  };
  // --profile-only: one path alone, for `node --cpu-prof` (no alternation in the profile).
  const names = profileOnly === undefined ? Object.keys(paths) : [profileOnly];
  for (const name of names) {
    const r = await paths[name]();
    if (r?.content?.[0]?.text !== args.text) throw new Error(`${name}: unexpected ${r}`);
  }

  const latencies = Object.fromEntries(names.map((name) => [name, new Float64Array(calls)]));
  const timeAll = async (count, record) => {
    for (let i = 0; i < count; i++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length];
        const start = performance.now();
        await paths[name]();
        const elapsed = performance.now() - start;
        if (record) latencies[name][i] = elapsed;
      }
    }
  };
  await timeAll(warmup, false);
  gc();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await timeAll(calls, true);
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);

  // Blocks: 500 calls of one path back to back, the paths alternating, for the mean µs per call
  // (no timer read between calls; GC included, which a per-call p50 does not see).
  const blockMeans = Object.fromEntries(names.map((name) => [name, []]));
  const block = 500;
  for (let b = 0; b < 16; b++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(b + k) % names.length];
      const start = performance.now();
      for (let i = 0; i < block; i++) await paths[name]();
      blockMeans[name].push(((performance.now() - start) * 1000) / block);
    }
  }

  const stats = Object.fromEntries(
    names.map((name) => [
      name,
      {
        p50Us: quantile(latencies[name], 0.5) * 1000,
        p99Us: quantile(latencies[name], 0.99) * 1000,
        // The best block: other processes on the machine only ever add to a block's time.
        meanUs: Math.min(...blockMeans[name]),
      },
    ]),
  );
  const metrics = host.metrics();
  await Promise.all([client.close(), host.close(), hostNoValidate.close()]);
  await Promise.all(servers.map((server) => server.close()));
  return {
    calls,
    warmup,
    elapsedMs,
    cpuUsPerCall: (cpu.user + cpu.system) / (calls * names.length),
    stats,
    hostCallsCounted: countCalls(metrics),
  };
}

/** The number of calls the host's metrics saw (a check that metrics were on). */
function countCalls(metrics) {
  let total = 0;
  const visit = (value) => {
    if (value === null || typeof value !== 'object') return;
    if (typeof value.calls === 'number' && value.server !== undefined) total += value.calls;
    for (const child of Object.values(value)) visit(child);
  };
  visit(metrics);
  return total;
}

// ---- listing and naming ---------------------------------------------------------------------------

/**
 * 50 tool names for server `s`: plain ones, and hostile ones (dots, spaces, unicode, the separator
 * itself, 200 characters, names that clash once sanitised).
 */
function toolNamesFor(s, count) {
  const names = [];
  for (let i = 0; names.length < count; i++) {
    switch (i % 10) {
      case 0:
        names.push(`read_file_${i}`);
        break;
      case 1:
        names.push(`files.read.${i}`);
        break;
      case 2:
        names.push(`files read ${i}`); // sanitises to files_read_{i}, like the next one
        break;
      case 3:
        names.push(`files_read_${i - 1}`);
        break;
      case 4:
        names.push(`lire_le_fichier_${i}_é`);
        break;
      case 5:
        names.push(`читать_файл_${i}`);
        break;
      case 6:
        names.push(`tool__with__separator__${i}`);
        break;
      case 7:
        names.push(`${'long'.repeat(50)}_${i}`);
        break;
      case 8:
        names.push(`emoji_🚀_${i}_${s}`);
        break;
      default:
        names.push(`Mixed-Case.Name:${i}`);
    }
  }
  return names;
}

function toolsFor(s, count) {
  return toolNamesFor(s, count).map((name, i) => ({
    name,
    description: `Tool ${i} of server ${s}: does something useful with its arguments.`,
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'A path' },
        limit: { type: 'integer', minimum: 0 },
        mode: { type: 'string', enum: ['fast', 'safe'] },
      },
      required: ['path'],
    },
  }));
}

async function listing({ servers: serverCount, toolsPerServer, repeats }) {
  const definitions = Array.from({ length: serverCount }, (_, s) => ({
    key: `server_${String(s).padStart(2, '0')}`,
    tools: toolsFor(s, toolsPerServer),
  }));
  const pairs = definitions.flatMap((d) => d.tools.map((t) => ({ server: d.key, tool: t.name })));

  // assignNames alone: the first call in the process, then warm (median of repeats).
  let t = performance.now();
  const assignment = assignNames(pairs);
  const assignColdMs = performance.now() - t;
  const assignWarm = [];
  for (let i = 0; i < repeats; i++) {
    t = performance.now();
    assignNames(pairs);
    assignWarm.push(performance.now() - t);
  }
  const names = [...assignment.names.keys()];
  const valid = names.every(isProviderSafeName);
  const roundTrip = pairs.every((p) => {
    const name = assignment.exposed(p.server, p.tool);
    const back = name === undefined ? undefined : assignment.names.get(name);
    return back?.server === p.server && back.tool === p.tool;
  });

  // host.start() to ready: the first host in the process (loads the schema validator), then warm.
  const startOnce = async () => {
    const fakes = [];
    const host = new McpHost({
      servers: definitions.map((d) => ({
        name: d.key,
        transport: () => echoServerTransport(fakes, d.tools),
        client: { era: 'legacy', clientInfo: CLIENT_INFO },
      })),
    });
    let t0 = performance.now();
    const statuses = await startedStatuses(host);
    const startMs = performance.now() - t0;
    t0 = performance.now();
    const cold = host.tools();
    const toolsColdMs = performance.now() - t0;
    const warm = [];
    for (let i = 0; i < repeats; i++) {
      t0 = performance.now();
      host.tools();
      warm.push(performance.now() - t0);
    }
    const ready = statuses.filter((s) => s.state === 'ready').length;
    const listed = cold.length;
    const unique = new Set(cold.map((tool) => tool.name)).size === listed;
    const allValid = cold.every((tool) => isProviderSafeName(tool.name));
    t0 = performance.now();
    await host.close();
    const closeMs = performance.now() - t0;
    await Promise.all(fakes.map((fake) => fake.close()));
    return {
      startMs,
      closeMs,
      toolsColdMs,
      toolsWarmMs: quantile(warm, 0.5),
      ready,
      listed,
      unique,
      allValid,
    };
  };
  const first = await startOnce();
  const again = [];
  for (let i = 0; i < 3; i++) again.push(await startOnce());
  return {
    servers: serverCount,
    tools: pairs.length,
    names: names.length,
    collisions: assignment.collisions.length,
    namesValid: valid,
    roundTrip,
    assignColdMs,
    assignWarmMs: quantile(assignWarm, 0.5),
    first,
    warmStartMs: quantile(
      again.map((r) => r.startMs),
      0.5,
    ),
    warmCloseMs: quantile(
      again.map((r) => r.closeMs),
      0.5,
    ),
    warmToolsColdMs: quantile(
      again.map((r) => r.toolsColdMs),
      0.5,
    ),
    warmToolsWarmMs: quantile(
      again.map((r) => r.toolsWarmMs),
      0.5,
    ),
    ok: [first, ...again].every(
      (r) => r.ready === serverCount && r.listed === pairs.length && r.unique && r.allValid,
    ),
    listed: first.listed,
  };
}

// ---- connecting stdio servers -----------------------------------------------------------------

function stdioServer(name) {
  return {
    name,
    transport: () =>
      new StdioTransport({ command: process.execPath, args: [SERVER_PATH], serverName: name }),
    client: { era: 'legacy', clientInfo: CLIENT_INFO },
  };
}

/** Starts a host with these servers; returns the wall time to ready and every server's pid. */
async function startHost(names) {
  const host = new McpHost({ servers: names.map(stdioServer) });
  const t0 = performance.now();
  const statuses = await startedStatuses(host);
  const ms = performance.now() - t0;
  const pids = statuses.map((s) => s.pid).filter((pid) => pid !== undefined);
  const ready = statuses.filter((s) => s.state === 'ready').length;
  await host.close();
  return { ms, pids, ready };
}

async function connect({ servers: count, order }) {
  const names = Array.from({ length: count }, (_, i) => `echo_${String(i).padStart(2, '0')}`);
  const pids = [];
  // Untimed: one connect first, so neither side pays the first listing's schema-engine load.
  const warm = await startHost(['warmup']);
  pids.push(...warm.pids);

  const singles = async () => {
    const times = [];
    let ready = 0;
    for (const name of names) {
      const one = await startHost([name]);
      times.push(one.ms);
      ready += one.ready;
      pids.push(...one.pids);
    }
    return { times, ready };
  };
  const together = async () => {
    const all = await startHost(names);
    pids.push(...all.pids);
    return all;
  };
  let alone;
  let all;
  if (order === 'parallel-first') {
    all = await together();
    alone = await singles();
  } else {
    alone = await singles();
    all = await together();
  }
  const sumMs = alone.times.reduce((a, b) => a + b, 0);
  // Every server process must be gone once its host closed.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const leaked = pids.filter(isRunning);
  for (const pid of leaked) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return {
    servers: count,
    order,
    singleMs: alone.times,
    singleP50Ms: quantile(alone.times, 0.5),
    sumMs,
    wallMs: all.ms,
    ratio: all.ms / sumMs,
    ready: { alone: alone.ready, together: all.ready },
    pids,
    leaked,
  };
}

// ---- run ------------------------------------------------------------------------------------------

const spec = JSON.parse(process.argv[2] ?? '{}');
const modes = { routing, listing, connect };
if (!(spec.mode in modes)) throw new Error(`unknown mode ${spec.mode}`);
const result = await modes[spec.mode](spec);
process.stdout.write(`${JSON.stringify({ mode: spec.mode, ...result })}\n`);
