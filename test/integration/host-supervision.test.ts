/**
 * McpHost supervising real stdio server processes (test/fixtures/servers/supervised.mjs): a
 * server that dies at every start ends in `crash_loop` after `crashLimit` spawns, backing off
 * between them; a wedged (SIGSTOPped) server is found by the health checks and replaced, and the
 * call in flight on it fails at once; one that misses a single check is only degraded; calls to a
 * dead server (in flight, queued, or made while it waits to restart) fail at once instead of
 * waiting for their timeout; a server that exits while its listing is in the pin check is
 * restarted; a second, healthy server keeps answering throughout (its latency during each fault
 * is printed beside its baseline); and after `close()` no process of any server is left.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  McpHost,
  McpHostError,
  MemoryStateStore,
  type HostServerDefinition,
  type McpHostOptions,
  type ServerState,
  type ServerStatus,
} from '../../src/index.js';
import { PINS_NAMESPACE } from '../../src/host/pins/pin-record.js';
import { StdioTransport } from '../../src/stdio.js';
import { leakGuard, type LeakGuard } from '../helpers/leak-guard.js';
import { isRunning, waitUntilGone } from '../helpers/processes.js';
import { tempDir, type TempDir } from '../helpers/scratch.js';
import { now, rejectionOf, reportTiming } from '../helpers/timing.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/servers/supervised.mjs', import.meta.url));

/** Generous bounds: they prove there is no hang or wait-for-timeout, not a budget. */
const FAIL_FAST_BOUND_MS = 1_000;
const HEALTHY_MAX_LATENCY_MS = 2_000;
/** Calls of the healthy server before a fault: its baseline. */
const BASELINE_CALLS = 40;
/** Pause between two calls of the healthy server (a steady load, not a flood of the 2 cores). */
const PROBE_PACE_MS = 5;

interface SupervisedServer {
  readonly definition: HostServerDefinition;
  /** The file the fixture must find to start healthily (only with `crashUnlessFlag`). */
  readonly flag: string;
  /** Pids of every process started for this server, in order. */
  spawns(): number[];
}

/**
 * A host and the fixture servers it runs, as an `await using` resource: disposing it closes the
 * host and proves, with a leak guard that knows every pid any server ever had, that nothing
 * survived (no process, no handle, no unhandled rejection).
 */
class Rig implements AsyncDisposable {
  readonly host: McpHost;
  readonly #dir: TempDir = tempDir();
  readonly #guard: LeakGuard = leakGuard();
  readonly #servers: SupervisedServer[] = [];

  constructor(options: McpHostOptions) {
    this.host = new McpHost({ callTimeoutMs: 30_000, ...options });
  }

  server(
    name: string,
    options: {
      crashUnlessFlag?: boolean;
      exitAfterList?: boolean;
      onTransport?: (transport: StdioTransport) => void;
    } = {},
  ): SupervisedServer {
    const log = join(this.#dir.path, `${name}.spawns`);
    const flag = join(this.#dir.path, `${name}.healthy`);
    const args = [FIXTURE, `--spawn-log=${log}`];
    if (options.crashUnlessFlag === true) args.push(`--crash-unless=${flag}`);
    if (options.exitAfterList === true) args.push('--exit-after-list');
    const server: SupervisedServer = {
      definition: {
        name,
        transport: () => {
          const transport = new StdioTransport({
            serverName: name,
            command: process.execPath,
            args,
          });
          options.onTransport?.(transport);
          return transport;
        },
        // Pinned: with era detection, a server that dies on the probe is started once more (as
        // legacy) within the same connect attempt, and spawns would no longer count attempts.
        client: { era: 'legacy' },
      },
      flag,
      spawns: () => readLines(log).map(Number),
    };
    this.#servers.push(server);
    return server;
  }

  /** Every pid any server had. */
  pids(): number[] {
    return this.#servers.flatMap((server) => server.spawns());
  }

  async [Symbol.asyncDispose](): Promise<void> {
    try {
      await this.host.close();
      for (const pid of this.pids()) this.#guard.trackPid(pid);
      await this.#guard[Symbol.asyncDispose]();
    } finally {
      this.#dir[Symbol.dispose]();
    }
  }
}

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** One server's status changes, each with the time it was seen (performance.now()). */
function recordStatuses(host: McpHost, name: string): Array<ServerStatus & { seenAt: number }> {
  const seen: Array<ServerStatus & { seenAt: number }> = [];
  host.onServerStatus((status) => {
    if (status.name === name) seen.push({ ...status, seenAt: performance.now() });
  });
  return seen;
}

/**
 * The next status of `name` that satisfies `matches` (or the current one, if it does); the
 * server may not be registered yet.
 */
function statusWhere(
  host: McpHost,
  name: string,
  matches: (status: ServerStatus) => boolean,
): Promise<ServerStatus> {
  return new Promise((resolve) => {
    const current = host.status().find((status) => status.name === name);
    if (current !== undefined && matches(current)) return resolve(current);
    const subscription = host.onServerStatus((status) => {
      if (status.name === name && matches(status)) {
        subscription.dispose();
        resolve(status);
      }
    });
  });
}

const inState = (state: ServerState) => (status: ServerStatus) => status.state === state;

/** A state store whose pin reads and writes first wait for `gate`: a pin check as slow as asked. */
class GatedStore extends MemoryStateStore {
  gate: Promise<unknown> = Promise.resolve();

  override async get<T = unknown>(namespace: string, key: string): Promise<T | undefined> {
    if (namespace === PINS_NAMESPACE) await this.gate;
    return super.get<T>(namespace, key);
  }

  override async update<T = unknown>(
    namespace: string,
    key: string,
    fn: (current: T | undefined) => T | undefined,
  ): Promise<T | undefined> {
    if (namespace === PINS_NAMESPACE) await this.gate;
    return super.update<T>(namespace, key, fn);
  }
}

interface Sample {
  phase: string;
  ms: number;
  error?: string;
}

/**
 * Calls a tool of the healthy server over and over (one call at a time, a few ms apart) and keeps
 * each call's latency under the current phase, so its latency during a fault can be set beside
 * its baseline.
 */
class LatencyProbe implements AsyncDisposable {
  phase = 'baseline';
  readonly samples: Sample[] = [];
  readonly #host: McpHost;
  readonly #tool: string;
  #stopped = false;
  #waiter: { phase: string; count: number; resolve: () => void } | undefined;
  readonly #loop: Promise<void>;

  constructor(host: McpHost, tool: string) {
    this.#host = host;
    this.#tool = tool;
    this.#loop = this.#run();
  }

  /** Resolves once `count` calls of the current phase have finished. */
  calls(count: number): Promise<void> {
    return new Promise((resolve) => {
      this.#waiter = { phase: this.phase, count, resolve };
      this.#check();
    });
  }

  stop(): Promise<void> {
    this.#stopped = true;
    return this.#loop;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  summary(phase: string): { n: number; p50: number; max: number; failures: string[] } {
    const of = this.samples.filter((s) => s.phase === phase);
    const ms = of.map((s) => s.ms).sort((a, b) => a - b);
    return {
      n: of.length,
      p50: ms[Math.floor((ms.length - 1) / 2)] ?? NaN,
      max: ms.at(-1) ?? NaN,
      failures: of.flatMap((s) => (s.error === undefined ? [] : [s.error])),
    };
  }

  /** Prints the healthy server's latency per phase on one line. */
  report(label: string): void {
    const phases = [...new Set(this.samples.map((s) => s.phase))];
    const parts = phases.map((phase) => {
      const { n, p50, max, failures } = this.summary(phase);
      return `${phase} p50 ${p50.toFixed(2)} ms max ${max.toFixed(2)} ms (${n} calls, ${failures.length} failed)`;
    });
    console.log(`[measure] healthy server, ${label}: ${parts.join('; ')}`);
  }

  async #run(): Promise<void> {
    let i = 0;
    while (!this.#stopped) {
      const phase = this.phase;
      const message = `call ${i++}`;
      const started = performance.now();
      let error: string | undefined;
      try {
        const result = await this.#host.callTool(this.#tool, { message });
        const text = result.content[0]?.type === 'text' ? result.content[0].text : undefined;
        if (text !== message) error = `wrong answer: ${JSON.stringify(result)}`;
      } catch (failure) {
        error = String(failure);
      }
      this.samples.push({ phase, ms: performance.now() - started, error });
      this.#check();
      await delay(PROBE_PACE_MS);
    }
  }

  #check(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    if (this.samples.filter((s) => s.phase === waiter.phase).length < waiter.count) return;
    this.#waiter = undefined;
    waiter.resolve();
  }
}

/**
 * Waits, one event-loop turn at a time, until `condition` holds (for a state no event reports,
 * such as a call reaching a limiter's queue a few promise steps after it was made).
 */
async function turnsUntil(condition: () => boolean, maxTurns = 1_000): Promise<void> {
  for (let turn = 0; !condition(); turn++) {
    if (turn >= maxTurns) throw new Error(`condition not met after ${maxTurns} turns`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Asserts the healthy server answered every call, within the generous bound. */
function expectHealthyThroughout(probe: LatencyProbe): void {
  for (const phase of new Set(probe.samples.map((s) => s.phase))) {
    const { n, max, failures } = probe.summary(phase);
    expect(failures, `calls of the healthy server failed (${phase})`).toEqual([]);
    expect(n, `no call of the healthy server finished (${phase})`).toBeGreaterThan(0);
    expect(max, `slowest call of the healthy server (${phase})`).toBeLessThan(
      HEALTHY_MAX_LATENCY_MS,
    );
  }
}

describe('McpHost supervising stdio servers', () => {
  it('a server that dies at every start ends in crash_loop after crashLimit spawns, with the backoff honoured; restartServer() brings it back', async () => {
    const baseDelayMs = 100;
    const crashLimit = 4;
    await using rig = new Rig({
      restart: { baseDelayMs, maxDelayMs: 10_000, crashLimit },
      health: { intervalMs: 0 },
    });
    const { host } = rig;
    const healthy = rig.server('healthy');
    const flaky = rig.server('flaky', { crashUnlessFlag: true });
    expect((await host.addServer(healthy.definition)).state).toBe('ready');
    await using probe = new LatencyProbe(host, 'mcp__healthy__echo');
    await probe.calls(BASELINE_CALLS);

    probe.phase = 'crash loop';
    const statuses = recordStatuses(host, 'flaky');
    const crashLooped = statusWhere(host, 'flaky', inState('crash_loop'));
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await host.addServer(flaky.definition);
    const looped = await crashLooped;
    const elapsedMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    probe.phase = 'after';

    // connecting (the initial state) → restarting → connecting → … → crash_loop.
    expect(statuses.map((s) => s.state)).toEqual([
      ...Array.from({ length: crashLimit - 1 }, () => ['restarting', 'connecting']).flat(),
      'crash_loop',
    ]);
    expect(flaky.spawns()).toHaveLength(crashLimit);
    expect(looped).toMatchObject({
      state: 'crash_loop',
      lastError: {
        code: 'PROCESS_EXITED',
        message: expect.stringContaining('exited with code 7') as unknown,
      },
      restartCount: crashLimit - 1,
      toolCount: 0,
    });
    expect(looped.nextRetryAt).toBeUndefined();
    expect(looped.pid).toBeUndefined();

    // No spin: every restart waited at least half its step of the exponential backoff.
    const minimumsMs: number[] = [];
    statuses.forEach((status, i) => {
      if (status.state !== 'restarting') return;
      const step = minimumsMs.length;
      const minimumMs = (baseDelayMs * 2 ** step) / 2;
      minimumsMs.push(minimumMs);
      const scheduledMs = Date.parse(status.nextRetryAt!) - Date.parse(status.since);
      expect(scheduledMs).toBeGreaterThanOrEqual(minimumMs - 1);
      expect(scheduledMs).toBeLessThanOrEqual(baseDelayMs * 2 ** step + 1);
      const next = statuses[i + 1]!;
      expect(next.state).toBe('connecting');
      expect(next.seenAt - status.seenAt).toBeGreaterThanOrEqual(minimumMs - 1);
    });
    const sumOfMinimumsMs = minimumsMs.reduce((a, b) => a + b, 0);
    expect(elapsedMs).toBeGreaterThanOrEqual(sumOfMinimumsMs);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    console.log(
      `[measure] crash loop: ${crashLimit} spawns in ${elapsedMs.toFixed(0)} ms (minimum backoff ${sumOfMinimumsMs} ms), host CPU ${cpuMs.toFixed(0)} ms, delays ${statuses
        .filter((s) => s.state === 'restarting')
        .map((s) => Date.parse(s.nextRetryAt!) - Date.parse(s.since))
        .join('/')} ms`,
    );

    // It never listed a tool, so none is offered: a call is refused at once.
    await expect(host.callTool('mcp__flaky__echo', { message: 'x' })).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });

    // Fixed (the flag file), a manual restart forgets the crashes and connects it.
    writeFileSync(flaky.flag, '');
    const back = await host.restartServer('flaky');
    expect(back).toMatchObject({ state: 'ready', restartCount: crashLimit, toolCount: 2 });
    expect(back.lastError).toBeUndefined();
    expect(flaky.spawns()).toHaveLength(crashLimit + 1);
    expect(back.pid).toBe(flaky.spawns().at(-1));
    const result = await host.callTool('mcp__flaky__echo', { message: 'back' });
    expect(result.content).toEqual([{ type: 'text', text: 'back' }]);

    await probe.calls(BASELINE_CALLS);
    await probe.stop();
    probe.report('while another crash-loops');
    expectHealthyThroughout(probe);

    await host.close();
    expect(rig.pids().filter(isRunning)).toEqual([]);
  });

  it('a wedged (SIGSTOPped) server is found by the health checks, killed and replaced', async () => {
    await using rig = new Rig({
      restart: { baseDelayMs: 100 },
      health: { intervalMs: 100, timeoutMs: 200, failuresBeforeRestart: 2 },
    });
    const { host } = rig;
    const healthy = rig.server('healthy');
    const wedged = rig.server('wedged');
    await host.addServer(healthy.definition);
    const first = await host.addServer(wedged.definition);
    expect(first.state).toBe('ready');
    const oldPid = first.pid!;
    expect(oldPid).toBe(wedged.spawns()[0]);
    await using probe = new LatencyProbe(host, 'mcp__healthy__echo');
    await probe.calls(BASELINE_CALLS);

    probe.phase = 'wedge';
    const statuses = recordStatuses(host, 'wedged');
    const replaced = statusWhere(
      host,
      'wedged',
      (s) => s.state === 'ready' && s.pid !== undefined && s.pid !== oldPid,
    );
    // A call in flight when it wedges (the server said it arrived).
    let arrived!: () => void;
    const hangArrived = new Promise<void>((resolve) => (arrived = resolve));
    const inFlight = rejectionOf(host.callTool('mcp__wedged__hang', {}, { onProgress: arrived }));
    await hangArrived;
    const stoppedAt = performance.now();
    process.kill(oldPid, 'SIGSTOP');
    const back = await replaced;
    probe.phase = 'after';

    expect(statuses.map((s) => s.state)).toEqual(['degraded', 'restarting', 'connecting', 'ready']);
    const [degraded, restarting] = statuses;
    expect(degraded!.lastError?.code).toBe('REQUEST_TIMEOUT');
    expect(restarting!.lastError?.code).toBe('SERVER_UNAVAILABLE');
    expect(back.restartCount).toBe(1);
    // The call in flight failed when the server was given up on, not seconds later when its
    // process was finally killed.
    const { error: inFlightError, at: inFlightFailedAt } = await inFlight;
    expect(inFlightError).toMatchObject({
      code: 'CONNECTION_CLOSED',
      message: expect.stringContaining('stopped answering') as unknown,
      cause: { code: 'SERVER_UNAVAILABLE' },
    });
    const inFlightMs = inFlightFailedAt - performance.timeOrigin - restarting!.seenAt;
    expect(inFlightMs).toBeLessThan(FAIL_FAST_BOUND_MS);
    expect(back.pid).toBe(wedged.spawns()[1]);
    const result = await host.callTool('mcp__wedged__echo', { message: 'unwedged' });
    expect(result.content).toEqual([{ type: 'text', text: 'unwedged' }]);
    // The stopped process goes through the whole close ladder (stdin end, 2 s, SIGTERM, 2 s,
    // SIGKILL: only SIGKILL reaches a stopped process) in the background, without close(). Its
    // exit is seen only inside the transport, so /proc is polled, within a bound.
    expect(await waitUntilGone([oldPid], 15_000)).toEqual([]);
    const goneMs = performance.now() - stoppedAt;
    console.log(
      `[measure] wedge: degraded after ${(degraded!.seenAt - stoppedAt).toFixed(0)} ms, restarting after ${(restarting!.seenAt - stoppedAt).toFixed(0)} ms (the call in flight failed ${inFlightMs.toFixed(1)} ms later), ready again (new pid) after ${(statuses.at(-1)!.seenAt - stoppedAt).toFixed(0)} ms, stopped process gone after ${goneMs.toFixed(0)} ms`,
    );

    await probe.calls(BASELINE_CALLS);
    await probe.stop();
    probe.report('while another is wedged');
    expectHealthyThroughout(probe);

    await host.close();
    expect(rig.pids().filter(isRunning)).toEqual([]);
  });

  it('a server that misses one health check is degraded, then ready again when it answers (no restart)', async () => {
    await using rig = new Rig({
      restart: { baseDelayMs: 100 },
      health: { intervalMs: 100, timeoutMs: 200, failuresBeforeRestart: 2 },
    });
    const { host } = rig;
    const paused = rig.server('paused');
    const first = await host.addServer(paused.definition);
    const pid = first.pid!;
    const statuses = recordStatuses(host, 'paused');
    // Stopped until its first missed check, resumed at once: the next check finds it answering.
    const subscription = host.onServerStatus((status) => {
      if (status.name === 'paused' && status.state === 'degraded') process.kill(pid, 'SIGCONT');
    });
    const recovered = statusWhere(
      host,
      'paused',
      (s) => s.state === 'ready' && statuses.some((seen) => seen.state === 'degraded'),
    );
    process.kill(pid, 'SIGSTOP');
    const back = await recovered;
    subscription.dispose();

    expect(statuses.map((s) => s.state)).toEqual(['degraded', 'ready']);
    expect(statuses[0]!.lastError?.code).toBe('REQUEST_TIMEOUT');
    expect(back).toMatchObject({ pid, restartCount: 0 });
    expect(paused.spawns()).toEqual([pid]);
    await expect(host.callTool('mcp__paused__echo', { message: 'ok' })).resolves.toMatchObject({
      content: [{ type: 'text', text: 'ok' }],
    });
  });

  it('calls to a dead server fail at once: in flight, queued, and while it waits to restart', async () => {
    await using rig = new Rig({
      restart: { baseDelayMs: 2_000 },
      health: { intervalMs: 0 },
    });
    const { host } = rig;
    const healthy = rig.server('healthy');
    const victim = rig.server('victim');
    await host.addServer(healthy.definition);
    await host.addServer({ ...victim.definition, maxInFlight: 1 });
    const pid = host.serverStatus('victim').pid!;
    await using probe = new LatencyProbe(host, 'mcp__healthy__echo');
    await probe.calls(BASELINE_CALLS);

    probe.phase = 'dead server';
    // One call in flight (the server said it arrived), one queued behind it (maxInFlight 1).
    let arrived!: () => void;
    const hangArrived = new Promise<void>((resolve) => (arrived = resolve));
    const inFlight = rejectionOf(host.callTool('mcp__victim__hang', {}, { onProgress: arrived }));
    await hangArrived;
    const queued = rejectionOf(host.callTool('mcp__victim__hang'));
    await turnsUntil(() => host.serverStatus('victim').queued === 1);
    expect(host.serverStatus('victim')).toMatchObject({ inFlight: 1, queued: 1 });
    const restarting = statusWhere(host, 'victim', inState('restarting'));
    const killedAt = now();
    process.kill(pid, 'SIGKILL');
    const down = await restarting;
    const inFlightError = await inFlight;
    const queuedError = await queued;
    for (const { error, at } of [inFlightError, queuedError]) {
      expect(error).toBeInstanceOf(McpHostError);
      expect(at - killedAt).toBeLessThan(FAIL_FAST_BOUND_MS);
    }
    expect((inFlightError.error as McpHostError).code).toBe('PROCESS_EXITED');
    expect(queuedError.error).toMatchObject({
      code: 'SERVER_UNAVAILABLE',
      message: expect.stringContaining("server 'victim': not available (restarting") as unknown,
      details: { state: 'restarting', lastError: { code: 'PROCESS_EXITED' } },
    });
    expect(down).toMatchObject({
      state: 'restarting',
      lastError: { code: 'PROCESS_EXITED', message: expect.stringContaining('SIGKILL') as unknown },
    });
    expect(down.nextRetryAt).toBeDefined();

    const calledAt = now();
    const { error, at } = await rejectionOf(host.callTool('mcp__victim__echo', { message: 'x' }));
    const failFastMs = at - calledAt;
    expect(error).toBeInstanceOf(McpHostError);
    const unavailable = error as McpHostError;
    expect(unavailable.code).toBe('SERVER_UNAVAILABLE');
    expect(unavailable.message).toContain("server 'victim': not available (restarting");
    expect(unavailable.message).toContain('next attempt in');
    expect(unavailable.message).toContain('SIGKILL');
    expect(unavailable.details).toMatchObject({
      state: 'restarting',
      lastError: { code: 'PROCESS_EXITED' },
    });
    expect(failFastMs).toBeLessThan(FAIL_FAST_BOUND_MS);
    reportTiming('call to a restarting server refused', failFastMs);
    reportTiming('in-flight call to a killed server failed', inFlightError.at - killedAt);
    reportTiming('queued call to a killed server failed', queuedError.at - killedAt);

    // It comes back on its own after the backoff.
    const back = await statusWhere(host, 'victim', inState('ready'));
    expect(back.pid).not.toBe(pid);
    expect(back.restartCount).toBe(1);
    await expect(host.callTool('mcp__victim__echo', { message: 'y' })).resolves.toMatchObject({
      content: [{ type: 'text', text: 'y' }],
    });

    await probe.stop();
    probe.report('while another is killed');
    expectHealthyThroughout(probe);

    await host.close();
    expect(rig.pids().filter(isRunning)).toEqual([]);
  });

  it('a server that exits while its listing is in the pin check is restarted, not called ready', async () => {
    const store = new GatedStore();
    await using rig = new Rig({
      stateStore: store,
      restart: { baseDelayMs: 50, crashLimit: 3 },
      health: { intervalMs: 0 },
    });
    const { host } = rig;
    // Each pin check waits until the client has seen its process exit.
    const server = rig.server('short-lived', {
      exitAfterList: true,
      onTransport: (transport) => {
        store.gate = new Promise((resolve) => transport.onClose(resolve));
      },
    });

    const first = await host.addServer(server.definition);

    expect(first).toMatchObject({
      state: 'restarting',
      lastError: {
        code: 'PROCESS_EXITED',
        message: expect.stringContaining('exited with code 5') as unknown,
      },
    });
    expect(first.pid).toBeUndefined();
    const looped = await statusWhere(host, 'short-lived', inState('crash_loop'));
    expect(looped.lastError?.code).toBe('PROCESS_EXITED');
    expect(server.spawns()).toHaveLength(3);
  });

  it('close() leaves no process: of a wedged server still being killed, of one waiting to restart, of a healthy one', async () => {
    await using rig = new Rig({
      restart: { baseDelayMs: 60_000 },
      health: { intervalMs: 100, timeoutMs: 200, failuresBeforeRestart: 2 },
    });
    const { host } = rig;
    const names = ['healthy', 'wedged', 'dead'];
    for (const name of names)
      expect((await host.addServer(rig.server(name).definition)).state).toBe('ready');
    // Wedged: found by the health checks, its client dropped while its process, stopped, is
    // still in the close ladder (about 4 s) when the host closes.
    const wedgedPid = host.serverStatus('wedged').pid!;
    const wedgedDropped = statusWhere(host, 'wedged', inState('restarting'));
    process.kill(wedgedPid, 'SIGSTOP');
    // Dead: killed, waiting a long backoff to restart.
    const deadDropped = statusWhere(host, 'dead', inState('restarting'));
    process.kill(host.serverStatus('dead').pid!, 'SIGKILL');
    await Promise.all([wedgedDropped, deadDropped]);
    expect(isRunning(wedgedPid)).toBe(true);

    const closingAt = performance.now();
    await host.close();
    reportTiming(
      'host close with a wedged server still being killed',
      performance.now() - closingAt,
    );
    expect(rig.pids()).toHaveLength(names.length);
    expect(rig.pids().filter(isRunning)).toEqual([]);
    expect(host.status().map((s) => s.state)).toEqual(names.map(() => 'closed'));
  });
});
