// The capacity benchmark (issue 19), one measurement in a fresh process: forks one gateway replica
// (bench/capacity-replica.mjs: an McpHost and `gateway.listen()` in a process of its own), drives
// it over HTTP from here with a raw client (bench/lib/gateway-http-load.mjs), reads its memory
// through the IPC channel (after a full GC there), and prints one JSON line with the figures.
//
//   node bench/capacity-worker.mjs '{"mode":"backends","kind":"memory","backends":100,"inFlight":64,"calls":10000,"warmup":2000}'
//   node bench/capacity-worker.mjs '{"mode":"sessions","steps":[1,10,100,1000],"inFlight":64,"calls":10000,"warmup":2000}'
//   node bench/capacity-worker.mjs '{"mode":"views","views":1000,"backends":10}'
//   node bench/capacity-worker.mjs '{"mode":"throughput","era":"legacy","sessions":64,"inFlight":256,"calls":20000,"warmup":4000}'
//
// backends: memory per backend (host side; stdio: the children's RSS apart), listing time
//   (host.start() to ready; every tool through the gateway, paginated), then session-less
//   2026-07-28 calls of `echo`, spread round robin over every backend, `inFlight` outstanding.
// sessions: one in-memory backend; legacy sessions opened step by step up to each of `steps`:
//   memory per session, then at each step legacy calls spread over every open session.
// views: a replica without views, then one with `views` views: memory per view once built, and
//   once every view's tools were listed through it (`/mcp/<view>`).
// throughput: one in-memory backend; calls at saturation in one era (legacy: over `sessions`
//   sessions; modern: session-less).
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { backendName, viewName } from './lib/capacity-plan.mjs';
import { createAgent, listAllTools, modernRequest, openSession } from './lib/gateway-http-load.mjs';
import { closedLoop } from './lib/load.mjs';
import { processCpuMicros } from './lib/server-cpu.mjs';
import { quantile } from './lib/stats.mjs';

const REPLICA = fileURLToPath(new URL('./capacity-replica.mjs', import.meta.url));
const ARGS = { text: 'hello from the mcp-host capacity benchmark' };
/** Sessions opened at once while stepping up. */
const OPEN_BATCH = 32;
/** Calls of the busy session: more than its replay buffer holds (256 events, two a call). */
const BUSY_SESSION_CALLS = 400;

/** Forks a replica; resolves once it listens, to its ready message and a few helpers. */
async function startReplica(spec) {
  const child = fork(REPLICA, [JSON.stringify(spec)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // To look inside the replica: MCP_HOST_BENCH_REPLICA_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/p'.
    execArgv: process.env.MCP_HOST_BENCH_REPLICA_NODE_ARGS?.split(' ').filter(Boolean) ?? [],
  });
  const exited = once(child, 'exit');
  const next = (type) =>
    new Promise((resolve, reject) => {
      const onMessage = (message) => {
        if (message.type !== type) return;
        child.off('exit', onExit);
        child.off('message', onMessage);
        resolve(message);
      };
      const onExit = (code, signal) =>
        reject(new Error(`the replica exited (${signal ?? code}) before its '${type}'`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const ready = await next('ready');
  return {
    ...ready,
    memory: ready.memory,
    /** Its memory now (after a full GC there), and its children's RSS. */
    snapshot: () => {
      const answer = next('memory');
      child.send({ type: 'memory' });
      return answer;
    },
    cpuMicros: () => processCpuMicros(child.pid),
    close: async () => {
      // A replica that already exited (it failed) has nothing left to close.
      if (child.connected) child.send({ type: 'close' });
      await exited;
    },
  };
}

/**
 * Warm-up, then `calls` timed calls of `call` with `inFlight` outstanding; calls/s, p50 and p99
 * (µs), and the replica's CPU per call.
 */
async function load(replica, call, { inFlight, calls, warmup }) {
  await closedLoop(call, ARGS, inFlight, warmup);
  const cpu0 = replica.cpuMicros();
  const t0 = performance.now();
  const latencies = await closedLoop(call, ARGS, inFlight, calls);
  const elapsedMs = performance.now() - t0;
  const cpu1 = replica.cpuMicros();
  return {
    inFlight,
    calls,
    callsPerSec: (calls * 1000) / elapsedMs,
    p50Us: quantile(latencies, 0.5) * 1000,
    p99Us: quantile(latencies, 0.99) * 1000,
    replicaCpuUsPerCall: cpu0 === undefined || cpu1 === undefined ? null : (cpu1 - cpu0) / calls,
  };
}

/** A call function that sends each call to the next of `targets` (round robin). */
function roundRobin(targets, send) {
  let next = 0;
  return () => {
    const target = targets[next];
    next = (next + 1) % targets.length;
    return send(target);
  };
}

function checkEcho(result) {
  if (result?.content?.[0]?.text !== ARGS.text)
    throw new Error(`unexpected echo result: ${JSON.stringify(result).slice(0, 200)}`);
}

async function backends(spec) {
  const replica = await startReplica({ kind: spec.kind, backends: spec.backends, views: 0 });
  const agent = createAgent();
  try {
    let t0 = performance.now();
    const listed = await listAllTools(agent, replica.url);
    const listFirstMs = performance.now() - t0;
    t0 = performance.now();
    await listAllTools(agent, replica.url);
    const listMs = performance.now() - t0;
    const names = Array.from({ length: spec.backends }, (_, i) => `mcp__${backendName(i)}__echo`);
    const missing = names.filter((name) => !listed.some((tool) => tool.name === name));
    if (missing.length > 0) throw new Error(`not listed: ${missing.slice(0, 3).join(', ')}...`);
    checkEcho(
      await modernRequest(agent, replica.url, 'tools/call', { name: names[0], arguments: ARGS }),
    );
    const call = roundRobin(names, (name) =>
      modernRequest(agent, replica.url, 'tools/call', { name, arguments: ARGS }),
    );
    const figures = await load(replica, call, spec);
    const after = await replica.snapshot();
    return {
      ...spec,
      startMs: replica.startMs,
      ready: replica.ready,
      tools: replica.tools,
      listed: listed.length,
      listFirstMs,
      listMs,
      memory: replica.memory,
      memoryAfterCalls: after.memory,
      childRssBytes: after.childRssBytes,
      pids: replica.childPids,
      ...figures,
    };
  } finally {
    agent.destroy();
    await replica.close();
  }
}

async function sessions(spec) {
  const replica = await startReplica({ kind: 'memory', backends: 1, views: 0 });
  const agent = createAgent();
  const tool = `mcp__${backendName(0)}__echo`;
  try {
    const open = [];
    const steps = [];
    for (const target of spec.steps) {
      // Memory before and after opening the new sessions: what a fresh, idle session holds.
      const beforeOpen = (await replica.snapshot()).memory;
      const opened = target - open.length;
      while (open.length < target) {
        const batch = Math.min(OPEN_BATCH, target - open.length);
        open.push(
          ...(await Promise.all(
            Array.from({ length: batch }, () => openSession(agent, replica.url)),
          )),
        );
      }
      const afterOpen = await replica.snapshot();
      if (afterOpen.sessions !== target)
        throw new Error(`the replica holds ${afterOpen.sessions} sessions, not ${target}`);
      checkEcho(await open[0].request('tools/call', { name: tool, arguments: ARGS }));
      const call = roundRobin(open, (session) =>
        session.request('tools/call', { name: tool, arguments: ARGS }),
      );
      const figures = await load(replica, call, spec);
      steps.push({ at: target, opened, beforeOpen, afterOpen: afterOpen.memory, ...figures });
    }
    // A busy session: one more, whose calls fill its replay buffer (maxReplayEvents, 256 events:
    // two a call), against the same session idle.
    const busy = await openSession(agent, replica.url);
    const idle = (await replica.snapshot()).memory;
    const busyCalls = BUSY_SESSION_CALLS;
    await closedLoop(
      () => busy.request('tools/call', { name: tool, arguments: ARGS }),
      ARGS,
      8,
      busyCalls,
    );
    const afterBusy = (await replica.snapshot()).memory;
    return { ...spec, steps, busySession: { calls: busyCalls, idle, afterCalls: afterBusy } };
  } finally {
    agent.destroy();
    await replica.close();
  }
}

/** Memory of a replica with `count` views, once built and once every view listed its tools. */
async function viewsReplica(count, backendCount) {
  const replica = await startReplica({ kind: 'memory', backends: backendCount, views: count });
  const agent = createAgent();
  try {
    const built = (await replica.snapshot()).memory;
    let t0 = performance.now();
    const urls =
      count === 0
        ? [replica.url]
        : Array.from({ length: count }, (_, i) => `${replica.url}/${viewName(i)}`);
    for (const url of urls) {
      const tools = await listAllTools(agent, url);
      if (tools.length === 0) throw new Error(`no tools at ${url}`);
    }
    const listMsPerView = (performance.now() - t0) / urls.length;
    const listed = (await replica.snapshot()).memory;
    return { built, listed, listMsPerView, startMs: replica.startMs };
  } finally {
    agent.destroy();
    await replica.close();
  }
}

async function views(spec) {
  const none = await viewsReplica(0, spec.backends);
  const many = await viewsReplica(spec.views, spec.backends);
  return { ...spec, none, many };
}

async function throughput(spec) {
  const replica = await startReplica({ kind: 'memory', backends: 1, views: 0 });
  const agent = createAgent();
  const tool = `mcp__${backendName(0)}__echo`;
  try {
    let call;
    if (spec.era === 'legacy') {
      const open = [];
      while (open.length < spec.sessions) open.push(await openSession(agent, replica.url));
      checkEcho(await open[0].request('tools/call', { name: tool, arguments: ARGS }));
      call = roundRobin(open, (session) =>
        session.request('tools/call', { name: tool, arguments: ARGS }),
      );
    } else {
      checkEcho(
        await modernRequest(agent, replica.url, 'tools/call', { name: tool, arguments: ARGS }),
      );
      call = () => modernRequest(agent, replica.url, 'tools/call', { name: tool, arguments: ARGS });
    }
    return { ...spec, ...(await load(replica, call, spec)) };
  } finally {
    agent.destroy();
    await replica.close();
  }
}

const spec = JSON.parse(process.argv[2] ?? '{}');
const modes = { backends, sessions, views, throughput };
if (!(spec.mode in modes)) throw new Error(`unknown mode ${spec.mode}`);
const result = await modes[spec.mode](spec);
process.stdout.write(`${JSON.stringify(result)}\n`);
