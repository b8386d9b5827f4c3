/**
 * Issue 19's second "Done when" line: three `mcp-host gateway serve` replicas (the built CLI, one
 * config with `state: postgres`, each its `--replica-id`) behind HAProxy running
 * deploy/haproxy.cfg on 127.0.0.1, a throwaway PostgreSQL cluster as their shared store, each
 * replica with its own stdio backends (the v1 SDK fixture for the calls, the mutable fixture for
 * the pins). In front, official SDK clients of both eras (v1 `@modelcontextprotocol/sdk`, legacy
 * sessions over Streamable HTTP; v2 `@modelcontextprotocol/client` pinned to 2026-07-28) and
 * mcp-host's own `McpClient` (legacy sessions and 2026-07-28), each calling a slow tool in a loop:
 *
 * - every call is answered while the three run;
 * - one replica is killed (SIGKILL) mid-run: only the calls in flight on it fail (HAProxy's log
 *   line for each says it was on that replica and that the replica broke off), each with a typed
 *   error; the legacy sessions that lived on it are re-initialised elsewhere (mcp-host's client by
 *   itself on the 404; the v1 SDK client, which does not, by reconnecting as docs/deploy.md says);
 *   the modern clients go on through the others;
 * - a tool whose definition changed is quarantined on every replica, and once approved (`mcp-host
 *   tools approve` against the shared store) it is callable through every replica within 1 s;
 * - a replica started later holds the same pins at once.
 *
 * It runs alone (`npm run test:fleet`, vitest.fleet.config.ts), not in the default `vitest run`.
 * Run time: about 30-50 s on a shared 2-core machine (PostgreSQL, HAProxy, 4 replicas with 2
 * backends each, 54 clients).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseRecords } from '../fixtures/mcp/lib/record.mjs';
import { StreamableHttpTransport } from '../../src/http.js';
import { McpClient, McpHostError } from '../../src/index.js';
import { MODERN, gatewayConfig, nodeServer, text } from '../helpers/gateway-harness.js';
import { startGatewayReplica, type GatewayReplica } from '../helpers/gateway-replica.js';
import { haproxyBinary, startHaproxy, type HaproxyProcess } from '../helpers/haproxy.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';
import { startPostgres } from '../helpers/postgres-cluster.js';
import { closedPort, cliEnv, ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';
import { now, reportTiming } from '../helpers/timing.js';

// HAProxy first: when it is missing and cannot be installed, the test says so before it starts
// anything.
beforeAll(() => {
  haproxyBinary();
  ensureBuiltCli();
});

/** How many clients of each kind, 54 in all. */
const CLIENTS = { v1: 16, v2: 16, hostLegacy: 11, hostModern: 11 } as const;
type Kind = keyof typeof CLIENTS;
/** What each call of the load sleeps in the backend: long enough that calls are in flight. */
const SLEEP_MS = 250;
/** How far HAProxy's log times and this process's clock may disagree (ms). */
const CLOCK_SLACK_MS = 5;
/** A bound on each call (never reached unless something hangs). */
const CALL_TIMEOUT_MS = 15_000;
const SLEEP_TOOL = 'mcp__calls__sleep';
const PINNED_TOOL = 'mcp__mut__target';

/** One call of the load, as its client saw it. */
interface CallRecord {
  label: string;
  kind: Kind;
  /** The call's `tag` argument, which the backend's `sleeping` record repeats. */
  tag: string;
  startedAt: number;
  endedAt: number;
  error?: unknown;
}

/** One client in front of the load balancer, whichever SDK and era. */
interface Driver {
  readonly label: string;
  readonly kind: Kind;
  /** Calls the slow tool once with `tag`; rejects as the client does. */
  call(tag: string): Promise<void>;
  /** Reconnects (a v1 SDK client whose session the gateway forgot: it does not do it itself). */
  reconnect?(): Promise<void>;
  close(): Promise<void>;
}

/** One parsed `option httplog` line of the `mcp` frontend. */
interface LogLine {
  /** When HAProxy accepted the request (ms since the epoch). */
  acceptedAt: number;
  client: string;
  method: string;
  server: string;
  status: number;
  /** The termination state: `----` for a normal end; `SH--`, `SD--`: the server broke off. */
  termination: string;
  replicaHeader: string;
  request: string;
}

const LOG_LINE =
  /\[(\d+)\/(\w{3})\/(\d+):(\d+):(\d+):(\d+)\.(\d+)\] mcp gateways\/(\S+) \S+ (-?\d+) \d+ \S+ \S+ (\S{4}) \S+ \S+ \{([^|}]*)\|([^}]*)\} \{([^}]*)\} "([^"]*)"/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * Whether a log line can be a `tools/call`: a POST (a client's GET stream, opened again once the
 * dead replica cut it, is not) whose `Mcp-Method` says so, or that has none (clients of the 2025
 * revisions send none).
 */
const mayBeCall = (line: LogLine): boolean =>
  line.request.startsWith('POST') && (line.method === 'tools/call' || line.method === '');

function parseLog(lines: readonly string[]): LogLine[] {
  const parsed: LogLine[] = [];
  for (const line of lines) {
    const match = LOG_LINE.exec(line);
    if (match === null) continue;
    const [, day, , year, hour, minute, second, ms] = match.slice(0, 8).map(Number);
    const [server, status, termination, client, method, replicaHeader, request] = match.slice(8);
    parsed.push({
      // HAProxy writes its local time, as this process reads it (the same machine and zone).
      acceptedAt: new Date(
        year!,
        MONTHS.indexOf(match[2]!),
        day,
        hour,
        minute,
        second,
        ms,
      ).getTime(),
      server: server!,
      status: Number(status),
      termination: termination!,
      client: client!,
      method: method!,
      replicaHeader: replicaHeader!,
      request: request!,
    });
  }
  return parsed;
}

/** The clients' labels (sent as User-Agent, which HAProxy logs), kind by kind. */
function labels(): { label: string; kind: Kind }[] {
  return (Object.keys(CLIENTS) as Kind[]).flatMap((kind) =>
    Array.from({ length: CLIENTS[kind] }, (_, n) => ({ kind, label: `fleet-${kind}-${n}` })),
  );
}

async function connectDriver(
  lb: HaproxyProcess,
  token: string,
  kind: Kind,
  label: string,
): Promise<Driver> {
  const headers = { authorization: `Bearer ${token}`, 'user-agent': label };
  const url = new URL(lb.url);
  switch (kind) {
    case 'v1': {
      let client: ClientV1;
      const connect = async () => {
        client = new ClientV1({ name: label, version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
      };
      await connect();
      return {
        label,
        kind,
        call: async (tag) => {
          const result = await client.callTool(
            { name: SLEEP_TOOL, arguments: { ms: SLEEP_MS, tag } },
            undefined,
            { timeout: CALL_TIMEOUT_MS },
          );
          if (result.isError === true) throw new Error(`error result: ${text(result)}`);
        },
        reconnect: async () => {
          await client.close();
          await connect();
        },
        close: () => client.close(),
      };
    }
    case 'v2': {
      const client = new ClientV2({ name: label, version: '1.0.0' }, MODERN);
      await client.connect(new StreamableHTTPClientTransportV2(url, { requestInit: { headers } }));
      return {
        label,
        kind,
        call: async (tag) => {
          const result = await client.callTool(
            { name: SLEEP_TOOL, arguments: { ms: SLEEP_MS, tag } },
            { timeout: CALL_TIMEOUT_MS },
          );
          if (result.isError === true) throw new Error(`error result: ${text(result)}`);
        },
        close: () => client.close(),
      };
    }
    case 'hostLegacy':
    case 'hostModern': {
      const client = new McpClient({
        serverName: 'fleet',
        era: kind === 'hostLegacy' ? 'legacy' : 'modern',
        // A call the dead replica may have run is not sent again: it fails, typed.
        atMostOnce: true,
        // Loopback only, whatever HTTP_PROXY says.
        transport: () => new StreamableHttpTransport({ url: lb.url, headers, proxy: false }),
      });
      await client.connect();
      return {
        label,
        kind,
        call: async (tag) => {
          const result = await client.callTool(
            SLEEP_TOOL,
            { ms: SLEEP_MS, tag },
            { timeoutMs: CALL_TIMEOUT_MS },
          );
          if (result.isError === true) throw new Error(`error result: ${text(result)}`);
        },
        close: () => client.close(),
      };
    }
  }
}

/** Whether `error` is a v1 client's "the gateway does not know this session". */
const isSessionGone = (error: unknown): boolean =>
  error instanceof StreamableHTTPError && error.code === 404;

/** Drives every client in a loop until `stop()`; what each call did is in `records`. */
function runLoad(drivers: readonly Driver[]) {
  const records: CallRecord[] = [];
  const reconnected: string[] = [];
  const waiters = new Set<() => void>();
  let stopping = false;
  const loops = drivers.map(async (driver) => {
    for (let n = 0; !stopping; n++) {
      const tag = `${driver.label}#${n}`;
      const startedAt = now();
      let error: unknown;
      try {
        await driver.call(tag);
      } catch (caught) {
        error = caught;
      }
      records.push({
        label: driver.label,
        kind: driver.kind,
        tag,
        startedAt,
        endedAt: now(),
        ...(error === undefined ? {} : { error }),
      });
      if (isSessionGone(error) && driver.reconnect !== undefined) {
        await driver.reconnect();
        reconnected.push(driver.label);
      }
      for (const wake of waiters) wake();
    }
  });
  return {
    records,
    reconnected,
    /** Resolves once `test` holds (checked after each call), or rejects after `timeoutMs`. */
    until(test: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`not within ${timeoutMs} ms: ${what}`));
        }, timeoutMs);
        const check = () => {
          if (!test()) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        waiters.add(check);
        check();
      });
    },
    async stop(): Promise<void> {
      stopping = true;
      await Promise.all(loops);
    },
  };
}

/** The tags of the calls a backend began: its `sleeping` records, in its records file. */
function begun(file: string): Set<string> {
  const tags = new Set<string>();
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  for (const record of parseRecords(text))
    if (record.event === 'sleeping' && typeof record.tag === 'string') tags.add(record.tag);
  return tags;
}

/** A modern `McpClient` straight to one replica (not through the load balancer). */
async function direct(replica: GatewayReplica, token: string, view?: string): Promise<McpClient> {
  const client = new McpClient({
    serverName: replica.id,
    era: 'modern',
    transport: () =>
      new StreamableHttpTransport({
        url: view === undefined ? replica.url : `${replica.url}/${view}`,
        headers: { authorization: `Bearer ${token}` },
        proxy: false,
      }),
  });
  await client.connect();
  return client;
}

/** What a call of the pinned tool through `client` gets: answered, quarantined, or else what. */
async function pinState(client: McpClient): Promise<string> {
  try {
    const result = await client.callTool(PINNED_TOOL, { text: 'hi' });
    if (result.isError !== true && text(result) === 'target: hi') return 'callable';
    return text(result).startsWith('TOOL_QUARANTINED') ? 'quarantined' : text(result);
  } catch (error) {
    return String(error);
  }
}

/** Calls the pinned tool through `client` until it gets `state`; rejects after `timeoutMs`. */
async function untilPinState(client: McpClient, state: string, timeoutMs: number): Promise<number> {
  const start = now();
  let last = '';
  while ((last = await pinState(client)) !== state)
    if (now() - start > timeoutMs) throw new Error(`still '${last}' after ${timeoutMs} ms`);
  return now() - start;
}

describe('Done when, line 2: three gateway replicas behind HAProxy on a shared PostgreSQL store', () => {
  it('answers every call, loses only the dead replica’s calls in flight, and applies an approval on every replica within 1 s', async () => {
    const started = now();
    await using _guard = leakGuard();
    using dir = tempDir();
    await using postgres = await startPostgres();
    const database = await postgres.createDatabase();
    const recordsOf = (id: string) => join(dir.path, `${id}-records.jsonl`);
    const lbPort = await closedPort();
    const token = randomBytes(24).toString('base64url');
    const tokenFile = join(dir.path, 'gateway-token');
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const file = gatewayConfig(
      dir.path,
      {
        // Its records (the `sleeping` one names each call's tag) go to the replica's own file:
        // the gateway rate-limits its servers' stderr.
        calls: [
          ...nodeServer(mcpFixtures.legacySdk),
          'env: { MCP_FIXTURE_RECORDS: "${FLEET_RECORDS}" }',
        ],
        mut: nodeServer(mcpFixtures.mutableSdk),
      },
      [
        'state:',
        '  postgres:',
        `    url: ${database}`,
        'views:',
        '  pinned:',
        '    servers: [mut]',
        'gateway:',
        `  tokenFile: ${tokenFile}`,
        `  allowedHosts: ['127.0.0.1:${lbPort}']`,
      ],
    );
    const env = (id: string, more: Record<string, string> = {}) => ({
      MCP_HOST_STATE_DIR: join(dir.path, id),
      FLEET_RECORDS: recordsOf(id),
      ...more,
    });

    // ---- three replicas behind HAProxy ----------------------------------------------------------
    const replicas: GatewayReplica[] = [];
    await using _replicas = {
      [Symbol.asyncDispose]: async () => {
        for (const replica of replicas) await replica[Symbol.asyncDispose]();
      },
    };
    for (const id of ['gw-1', 'gw-2', 'gw-3'])
      replicas.push(await startGatewayReplica(id, file, env(id)));
    await using lb = await startHaproxy({
      dir: dir.path,
      port: lbPort,
      servers: replicas.map((replica) => ({ name: replica.id, address: replica.address })),
    });
    await lb.waitForServers((states) => [...states.values()].every((s) => s === 'UP'), 20_000);

    const drivers: Driver[] = [];
    await using _drivers = {
      [Symbol.asyncDispose]: async () => {
        await Promise.allSettled(drivers.map((driver) => driver.close()));
      },
    };
    for (const { kind, label } of labels())
      drivers.push(await connectDriver(lb, token, kind, label));
    expect(drivers.length).toBeGreaterThanOrEqual(50);

    // ---- every call answered while the three run ------------------------------------------------
    const load = runLoad(drivers);
    const calls = (label: string, after = 0) =>
      load.records.filter((r) => r.label === label && r.startedAt >= after);
    await load.until(
      () => drivers.every((driver) => calls(driver.label).length >= 2),
      'two calls of every client',
    );
    const healthy = [...load.records];
    expect(
      healthy.filter((r) => r.error !== undefined).map((r) => `${r.label}: ${String(r.error)}`),
    ).toEqual([]);
    // Every replica served some of them (the response header says which, HAProxy logs it).
    const answeredBy = new Set(
      parseLog(lb.logs)
        .filter((line) => line.status === 200)
        .map((line) => line.replicaHeader),
    );
    expect([...answeredBy].sort()).toEqual(['gw-1', 'gw-2', 'gw-3']);

    for (const line of parseLog(lb.logs))
      expect(line.replicaHeader || line.server).toBe(line.server);

    // Where each legacy session lives: the replica that answered its initialize.
    const sessionHome = new Map<string, string>();
    for (const line of parseLog(lb.logs))
      if (
        line.status === 200 &&
        !sessionHome.has(line.client) &&
        /^(fleet-(v1|hostLegacy))/.test(line.client)
      )
        sessionHome.set(line.client, line.server);

    // ---- one replica dies mid-run ---------------------------------------------------------------
    const victim = replicas[1]!;
    const onVictim = [...sessionHome].filter(([, home]) => home === victim.id).map(([l]) => l);
    expect(onVictim.length, 'legacy sessions on the replica that dies').toBeGreaterThan(0);
    // Killed while its backend runs calls (begun, by their records, and not answered yet).
    const answeredTags = () =>
      new Set(load.records.filter((r) => r.error === undefined).map((r) => r.tag));
    const runningOnVictim = () => {
      const answered = answeredTags();
      return [...begun(recordsOf(victim.id))].filter((tag) => !answered.has(tag)).length;
    };
    await load.until(() => runningOnVictim() >= 5, 'five calls in flight on the replica that dies');
    const killedAt = now();
    await victim.kill('SIGKILL');
    // Its exit, as this process learnt it: until the kernel has closed its sockets it may still
    // take a connection (and close it unanswered), so a call begun until then may be lost too.
    const diedAt = now();
    await lb.waitForServers((states) => states.get(victim.id) === 'DOWN', 20_000);
    // Every client goes on: two calls answered, begun after the kill.
    await load.until(
      () =>
        drivers.every(
          (driver) =>
            calls(driver.label, killedAt).filter((r) => r.error === undefined).length >= 2,
        ),
      'two calls answered after the kill for every client',
    );
    await load.stop();

    const failed = load.records.filter((r) => r.error !== undefined);
    const log = parseLog(lb.logs);
    const lostSessions = failed.filter((r) => isSessionGone(r.error));
    const inFlight = failed.filter((r) => !isSessionGone(r.error));
    const onDead = begun(recordsOf(victim.id));
    const onLive = new Set(
      replicas
        .filter((replica) => replica !== victim)
        .flatMap((replica) => [...begun(recordsOf(replica.id))]),
    );
    /** POSTs HAProxy saw the dead replica break off (it answers some of them 502). */
    const brokenOff = log.filter(
      (line) =>
        line.server === victim.id &&
        line.request.startsWith('POST') &&
        (line.status === 502 || line.termination.startsWith('S')),
    );
    /**
     * Whether HAProxy closed the call's connection without an answer or a log line: it does so
     * when a replica closes the connection before answering a request that was not the first on
     * its client connection (meaning "it never reached the server: retry"). With one connection
     * to a replica per request (`http-server-close`), only a replica that died does that. Only a
     * line that can be the call counts: a modern client's other requests meanwhile (its
     * `subscriptions/listen` stream, opened again once the dead replica cut it) are logged with
     * their own `Mcp-Method`.
     *
     * A line's time is HAProxy's clock, truncated to the millisecond, and stamps a request up to
     * about 2 ms before this process's clock says it was sent. The client's next call begins the
     * moment this one fails, so its line can bear a time just before this call's `endedAt`: the
     * window ends `CLOCK_SLACK_MS` early. (A call's own line is stamped when its request
     * arrived; one that arrived in the call's last milliseconds is left out, and the call counts
     * as closed silently: the lenient side.)
     */
    const closedSilently = (record: CallRecord) =>
      !log.some(
        (line) =>
          line.client === record.label &&
          mayBeCall(line) &&
          line.acceptedAt >= record.startedAt - CLOCK_SLACK_MS &&
          line.acceptedAt < record.endedAt - CLOCK_SLACK_MS,
      );
    // Only calls in flight on it when it died failed: each began before it died, on it (its
    // backend's record of the call's tag says so; for a call that had not reached the backend
    // yet, HAProxy's log: broken off there, or closed without a trace), and none ran on another
    // replica.
    for (const record of inFlight) {
      expect(record.startedAt, `${record.tag}: ${String(record.error)}`).toBeLessThan(diedAt);
      expect(
        onDead.has(record.tag) ||
          brokenOff.some((line) => line.client === record.label && mayBeCall(line)) ||
          closedSilently(record),
        `${record.tag} was in flight on ${victim.id} (began ${Math.round(killedAt - record.startedAt)} ms before the kill, failed ${Math.round(record.endedAt - killedAt)} ms after it: ${String(record.error)})`,
      ).toBe(true);
      expect(onLive.has(record.tag), `${record.tag} ran on a live replica`).toBe(false);
    }
    // And every call its backend was running when it died failed (none can have been answered).
    const answered = answeredTags();
    const cutShort = [...onDead].filter((tag) => !answered.has(tag));
    expect(inFlight.map((r) => r.tag)).toEqual(expect.arrayContaining(cutShort));
    expect(inFlight.length).toBeGreaterThan(0);
    // Each with a typed error: mcp-host's client a McpHostError with a connection code.
    for (const record of inFlight) {
      if (record.kind === 'hostLegacy' || record.kind === 'hostModern') {
        expect(record.error, record.label).toBeInstanceOf(McpHostError);
        expect([
          'HTTP_STATUS',
          'HTTP_REQUEST_FAILED',
          'STREAM_INTERRUPTED',
          // A legacy call whose stream broke resumes with GET; another replica answers 404.
          'SESSION_EXPIRED',
          'CONNECTION_CLOSED',
          'REQUEST_TIMEOUT',
        ]).toContain((record.error as McpHostError).code);
      } else expect(record.error, record.label).toBeInstanceOf(Error);
    }
    // A v1 client whose session lived there gets 404 on its next call, reconnects, goes on.
    for (const record of lostSessions) expect(onVictim).toContain(record.label);
    expect([...new Set(load.reconnected)].sort()).toEqual(
      [...new Set(lostSessions.map((r) => r.label))].sort(),
    );
    // mcp-host's legacy clients whose session lived there initialised a new one elsewhere.
    for (const label of onVictim.filter((l) => l.startsWith('fleet-hostLegacy')))
      expect(
        log.some(
          (line) =>
            line.client === label && line.method === 'initialize' && line.server !== victim.id,
        ),
        `${label} re-initialised on another replica`,
      ).toBe(true);
    const byKind = (records: CallRecord[]) =>
      Object.fromEntries(
        (Object.keys(CLIENTS) as Kind[]).map((k) => [
          k,
          records.filter((r) => r.kind === k).length,
        ]),
      );
    console.log(
      `[fleet] ${load.records.length} calls; ${victim.id} killed, its exit seen ${Math.round(diedAt - killedAt)} ms later; failed in flight on it: ${JSON.stringify(byKind(inFlight))}; ` +
        `running on its backend: ${cutShort.length}; 502 or cut off by HAProxy: ${brokenOff.length}; v1 sessions lost and reconnected: ${lostSessions.length}; ` +
        `legacy sessions that lived on it: ${onVictim.length}; codes: ${[
          ...new Set(inFlight.map((r) => (r.error as { code?: unknown }).code)),
        ].join(', ')}`,
    );
    await Promise.all(drivers.map((driver) => driver.close()));
    drivers.length = 0;

    // ---- an approval reaches every replica within 1 s -------------------------------------------
    const live = replicas.filter((replica) => !replica.exited);
    const clients = await Promise.all(live.map((replica) => direct(replica, token)));
    await using _clients = {
      [Symbol.asyncDispose]: async () => {
        await Promise.all(clients.map((client) => client.close()));
      },
    };
    for (const client of clients) expect(await pinState(client)).toBe('callable');
    // The same change on every replica's backend: the tool is quarantined on each.
    for (const client of clients) {
      await client.callTool('mcp__mut__mutate', { kind: 'description' });
    }
    await Promise.all(clients.map((client) => untilPinState(client, 'quarantined', 10_000)));
    const approved = await runCli(['--config', file, 'tools', 'approve', 'mut', 'target'], {
      env: cliEnv(env('cli')),
    });
    expect(approved.code, approved.stderr).toBe(0);
    const approvedAt = now();
    // Each replica polled directly until the tool answers, bounded (generously) past the 1 s.
    const reached = await Promise.all(
      clients.map(async (client) => {
        await untilPinState(client, 'callable', 5_000);
        return now() - approvedAt;
      }),
    );
    reportTiming('approval applied on the last replica', Math.max(...reached));
    for (const ms of reached) expect(ms).toBeLessThan(1_000);

    // ---- a replica started later holds the same pins at once ------------------------------------
    // Its own backend lists the tool as first defined: the shared pin (the approved change) holds
    // it back at once, where a host of its own would have trusted it on first use. Once its
    // backend has made the same change, the tool is offered, approved already.
    await using late = await startGatewayReplica('gw-4', file, env('gw-4'));
    const lateClient = await direct(late, token);
    const lateView = await direct(late, token, 'pinned');
    try {
      expect(await pinState(lateClient)).toBe('quarantined');
      await lateClient.callTool('mcp__mut__mutate', { kind: 'description' });
      await untilPinState(lateClient, 'callable', 10_000);
      // The config's views, with the same token.
      const names = (await lateView.listTools()).tools.map((tool) => tool.name).sort();
      expect(names).toEqual(['mcp__mut__crash', 'mcp__mut__mutate', PINNED_TOOL]);
    } finally {
      await lateClient.close();
      await lateView.close();
    }
    reportTiming('the fleet test', now() - started);
  });
});
