// The host part of the benchmark (McpHost, issue 5): runs bench/host-worker.mjs in fresh
// processes, reduces the rounds to medians, renders the tables and evaluates the host targets.
import { fileURLToPath } from 'node:url';
import { HOST_TARGETS } from '../config.mjs';
import { reapServer, runNodeJson } from './child.mjs';
import { median } from './stats.mjs';
import { fixed, formatTable } from './table.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const progress = (text) => process.stderr.write(`${text}\n`);

/**
 * `rounds` rounds of routing, listing and connect, each a fresh process; the connect order (20
 * single connects first, or all at once first) alternates by round. Pids of stdio servers still
 * alive after their worker exits are killed and recorded in `leaks`.
 */
export async function measureHost(measurements, rounds, leaks) {
  const results = [];
  for (let round = 0; round < rounds; round++) {
    for (const [id, measurement] of Object.entries(measurements)) {
      const spec = { ...measurement };
      if (id === 'connect') spec.order = round % 2 === 0 ? 'singles-first' : 'parallel-first';
      const result = await runNodeJson(here('../host-worker.mjs'), [JSON.stringify(spec)]);
      for (const pid of result.leaked ?? []) leaks.push({ scenario: `host ${id}`, pid });
      for (const pid of result.pids ?? []) {
        if (await reapServer(pid)) leaks.push({ scenario: `host ${id}`, pid });
      }
      results.push({ ...result, id, round });
      progress(`[host ${round + 1}/${rounds}] ${id.padEnd(7)} ${describe(result)}`);
    }
  }
  return results;
}

function describe(r) {
  if (r.mode === 'routing') {
    const { client, host, hostNoValidate } = r.stats;
    return (
      `p50 client ${client.p50Us.toFixed(2)} µs, host ${host.p50Us.toFixed(2)} µs ` +
      `(no validation ${hostNoValidate.p50Us.toFixed(2)} µs): overhead ${(host.p50Us - client.p50Us).toFixed(2)} µs`
    );
  }
  if (r.mode === 'listing') {
    return (
      `start ${r.first.startMs.toFixed(1)} ms (again ${r.warmStartMs.toFixed(1)} ms), ` +
      `tools() ${r.first.toolsColdMs.toFixed(3)} ms, assignNames ${r.assignWarmMs.toFixed(2)} ms`
    );
  }
  return (
    `${r.order}: all at once ${r.wallMs.toFixed(0)} ms, sum of alone ${r.sumMs.toFixed(0)} ms, ` +
    `ratio ${r.ratio.toFixed(2)}${r.leaked.length > 0 ? `, ${r.leaked.length} LEAKED` : ''}`
  );
}

/** Medians over rounds of every host figure, by measurement and figure name. */
export function summarizeHost(results) {
  const of = (id) => results.filter((r) => r.id === id);
  const routingFigures = (r) => {
    const { client, host, hostNoValidate } = r.stats;
    return {
      clientP50Us: client.p50Us,
      clientP99Us: client.p99Us,
      clientMeanUs: client.meanUs,
      hostP50Us: host.p50Us,
      hostP99Us: host.p99Us,
      hostMeanUs: host.meanUs,
      noValidateP50Us: hostNoValidate.p50Us,
      noValidateP99Us: hostNoValidate.p99Us,
      noValidateMeanUs: hostNoValidate.meanUs,
      overheadP50Us: host.p50Us - client.p50Us,
      overheadMeanUs: host.meanUs - client.meanUs,
      noValidateOverheadP50Us: hostNoValidate.p50Us - client.p50Us,
      noValidateOverheadMeanUs: hostNoValidate.meanUs - client.meanUs,
      cpuUsPerCall: r.cpuUsPerCall,
    };
  };
  const listingFigures = (r) => ({
    startColdMs: r.first.startMs,
    startWarmMs: r.warmStartMs,
    closeColdMs: r.first.closeMs,
    closeWarmMs: r.warmCloseMs,
    toolsFirstMs: r.first.toolsColdMs,
    toolsFirstWarmHostMs: r.warmToolsColdMs,
    toolsWarmMs: r.first.toolsWarmMs,
    assignColdMs: r.assignColdMs,
    assignWarmMs: r.assignWarmMs,
    collisions: r.collisions,
    ok: r.ok && r.namesValid && r.roundTrip ? 1 : 0,
  });
  const connectFigures = (r) => ({
    wallMs: r.wallMs,
    sumMs: r.sumMs,
    singleP50Ms: r.singleP50Ms,
    ratio: r.ratio,
    readyAlone: r.ready.alone,
    readyTogether: r.ready.together,
  });
  const figures = {
    routing: of('routing').map(routingFigures),
    listing: of('listing').map(listingFigures),
    connect: of('connect').map(connectFigures),
  };
  const pick = (id) => (name) => median(figures[id].map((f) => f[name]));
  return {
    rounds: Math.max(0, ...results.map((r) => r.round + 1)),
    routing: pick('routing'),
    listing: pick('listing'),
    connect: pick('connect'),
    min: (id, name) => Math.min(...figures[id].map((f) => f[name])),
    max: (id, name) => Math.max(...figures[id].map((f) => f[name])),
    first: (id) => of(id)[0],
  };
}

/** The host section of the report, and its targets. */
export function renderHost(results) {
  const h = summarizeHost(results);
  const routing = h.first('routing');
  const listing = h.first('listing');
  const connect = h.first('connect');
  const lines = [];
  if (routing !== undefined) {
    const rows = [
      ['client.callTool', 'client'],
      ['host.callTool (defaults)', 'host'],
      ['host.callTool, validateArguments: false', 'noValidate'],
    ].map(([label, key]) => [
      label,
      fixed(h.routing(`${key}P50Us`), 2),
      fixed(h.routing(`${key}P99Us`), 2),
      fixed(h.routing(`${key}MeanUs`), 2),
      key === 'client'
        ? '-'
        : fixed(h.routing(key === 'host' ? 'overheadP50Us' : 'noValidateOverheadP50Us'), 2),
      key === 'client'
        ? '-'
        : fixed(h.routing(key === 'host' ? 'overheadMeanUs' : 'noValidateOverheadMeanUs'), 2),
    ]);
    lines.push(
      '',
      `Host routing over the in-memory transport, medians of ${h.rounds} fresh processes. ${routing.calls.toLocaleString('en-US')} calls of each path,`,
      '  the three alternating call by call (p50, p99); then 16 blocks of 500 calls back to back per path',
      '  (block mean: µs per call of the best block). FakeMcpServer, legacy era, one echo tool with a required',
      '  string argument. Host defaults: null cleaning and inputSchema check, tool pins, metrics, 1 MiB result',
      '  budget, per-server call limiter; no audit sink, filter or approval hook:',
      formatTable(
        ['path', 'p50 µs', 'p99 µs', 'block mean µs', 'over client p50', 'over client mean'],
        rows,
      ),
    );
  }
  if (listing !== undefined) {
    const ms = (name, digits = 1) => fixed(h.listing(name), digits);
    lines.push(
      '',
      `Host listing and naming, ${listing.servers} in-memory servers x ${listing.tools / listing.servers} tools = ${listing.tools} tools, hostile names among them`,
      `  (${fixed(h.listing('collisions'), 0)} clashes after sanitising; every name provider-safe, unique and mapped back: ${h.min('listing', 'ok') === 1 ? 'yes' : 'NO'}):`,
      formatTable(
        ['what', 'ms'],
        [
          ['host.start() to ready, first host in the process', ms('startColdMs')],
          ['host.start() to ready, later hosts (median of 3)', ms('startWarmMs')],
          ['host.close(), first host', ms('closeColdMs')],
          ['host.close(), later hosts (median of 3)', ms('closeWarmMs')],
          ['host.tools(), first call after start', ms('toolsFirstMs', 3)],
          ['host.tools(), later calls', ms('toolsWarmMs', 4)],
          ['assignNames(1,000 pairs), first call', ms('assignColdMs', 2)],
          ['assignNames(1,000 pairs), later calls', ms('assignWarmMs', 2)],
        ],
      ),
    );
  }
  if (connect !== undefined) {
    lines.push(
      '',
      `Host connect, ${connect.servers} stdio echo servers (bench/echo-server.mjs via StdioTransport; connect = spawn,`,
      '  initialize, tools/list, pin check; each alone in a fresh host, against one host.start() of all):',
      formatTable(
        ['what', 'median', 'min', 'max'],
        [
          ['one server alone, p50 of 20, ms', 'singleP50Ms'],
          ['sum of 20 alone, ms', 'sumMs'],
          ['all 20 at once, wall ms', 'wallMs'],
          ['wall / sum', 'ratio'],
        ].map(([label, name]) => [
          label,
          ...[h.connect(name), h.min('connect', name), h.max('connect', name)].map((v) =>
            fixed(v, name === 'ratio' ? 2 : 0),
          ),
        ]),
      ),
    );
  }
  const targets = HOST_TARGETS.flatMap((target) => {
    const value = target.value(h);
    if (Number.isNaN(value)) return [];
    return [
      { name: target.name, value, pass: target.pass(value, h), detail: target.show(value, h) },
    ];
  });
  const summary = {
    routing: routing === undefined ? undefined : figuresOf(h.routing, routingNames),
    listing: listing === undefined ? undefined : figuresOf(h.listing, listingNames),
    connect: connect === undefined ? undefined : figuresOf(h.connect, connectNames),
  };
  return { text: lines.join('\n'), targets, summary };
}

const routingNames = [
  ...['client', 'host', 'noValidate'].flatMap((k) => [`${k}P50Us`, `${k}P99Us`, `${k}MeanUs`]),
  'overheadP50Us',
  'overheadMeanUs',
  'noValidateOverheadP50Us',
  'noValidateOverheadMeanUs',
];
const listingNames = [
  'startColdMs',
  'startWarmMs',
  'closeColdMs',
  'closeWarmMs',
  'toolsFirstMs',
  'toolsWarmMs',
  'assignColdMs',
  'assignWarmMs',
];
const connectNames = ['singleP50Ms', 'sumMs', 'wallMs', 'ratio'];

function figuresOf(get, names) {
  return Object.fromEntries(names.map((name) => [name, get(name)]));
}
