import { describe, expect, it } from 'vitest';
import { JsonRpcError } from '../../errors/json-rpc-error.js';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { NATIVE_SERVER, classifyCallError } from './call-outcome.js';
import { LatencyHistogram } from './latency-histogram.js';
import { HostMetrics, OTHER_ERROR_CODE, OTHER_TOOLS, type CallSample } from './metrics.js';
import { seededRandom as random } from '../../../test/helpers/seeded-random.js';

/** The exact nearest-rank percentile. */
function exact(sorted: readonly number[], q: number): number {
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

function expectWithin(actual: number, expected: number, relativeError: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(expected * relativeError * (1 + 1e-9));
}

describe('LatencyHistogram', () => {
  const rng = random(42);
  const distributions: Record<string, () => number[]> = {
    'uniform 1..10,000 ms': () => Array.from({ length: 10_000 }, (_, index) => index + 1),
    'exponential, mean 20 ms': () =>
      Array.from({ length: 50_000 }, () => -20 * Math.log(1 - rng())),
    'log-normal around 3 ms (sub-ms to seconds)': () =>
      Array.from({ length: 50_000 }, () => {
        const normal = Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
        return Math.exp(Math.log(3) + 1.5 * normal);
      }),
    'bimodal: cache hits at 40 µs, misses at 800 ms': () =>
      Array.from({ length: 20_000 }, (_, index) =>
        index % 10 === 0 ? 800 + rng() : 0.04 + rng() / 100,
      ),
  };

  for (const [name, make] of Object.entries(distributions)) {
    it(`reports percentiles within its relative error: ${name}`, () => {
      const values = make();
      const histogram = new LatencyHistogram();
      for (const value of values) histogram.record(value);
      const sorted = [...values].sort((a, b) => a - b);
      const summary = histogram.summary();
      expect(summary.count).toBe(values.length);
      expect(summary.min).toBe(sorted[0]);
      expect(summary.max).toBe(sorted.at(-1));
      expectWithin(summary.mean, values.reduce((a, b) => a + b, 0) / values.length, 1e-9);
      expectWithin(summary.p50, exact(sorted, 0.5), histogram.relativeError);
      expectWithin(summary.p90, exact(sorted, 0.9), histogram.relativeError);
      expectWithin(summary.p99, exact(sorted, 0.99), histogram.relativeError);
      for (const q of [0.001, 0.25, 0.75, 0.999, 1])
        expectWithin(histogram.percentile(q), exact(sorted, q), histogram.relativeError);
    });
  }

  it('honours a coarser relative error, with fewer buckets', () => {
    const fine = new LatencyHistogram();
    const coarse = new LatencyHistogram({ relativeError: 0.02 });
    expect(fine.bucketCount).toBe(1153);
    expect(coarse.bucketCount).toBeLessThan(fine.bucketCount / 1.9);
    const values = Array.from({ length: 5_000 }, (_, index) => (index + 1) * 0.37);
    for (const value of values) coarse.record(value);
    expectWithin(coarse.percentile(0.9), exact(values, 0.9), 0.02);
  });

  it('has fixed memory: the bucket count never changes, whatever is recorded', () => {
    const histogram = new LatencyHistogram();
    const buckets = histogram.bucketCount;
    for (const value of [0, 1e-9, 1e-3, 1, 1e6, 1e7, 1e12, Number.MAX_VALUE])
      histogram.record(value);
    expect(histogram.bucketCount).toBe(buckets);
    expect(histogram.count).toBe(8);
  });

  it('clamps to the exact extremes below minMs and above maxMs', () => {
    const histogram = new LatencyHistogram();
    histogram.record(0.0002);
    histogram.record(0.0005);
    expect(histogram.percentile(0.5)).toBe(0.0005);
    expect(histogram.summary().min).toBe(0.0002);
    const long = new LatencyHistogram({ maxMs: 1000 });
    long.record(5000);
    long.record(9000);
    expect(long.percentile(0.5)).toBe(9000);
    expect(long.summary().max).toBe(9000);
  });

  it('records negative, NaN and infinite durations as 0', () => {
    const histogram = new LatencyHistogram();
    for (const value of [-1, Number.NaN, Infinity, -Infinity]) histogram.record(value);
    expect(histogram.summary()).toEqual({
      count: 4,
      min: 0,
      mean: 0,
      p50: 0,
      p90: 0,
      p99: 0,
      max: 0,
    });
  });

  it('summarises nothing as zeros, and reset() starts afresh', () => {
    const histogram = new LatencyHistogram();
    expect(histogram.summary()).toEqual({
      count: 0,
      min: 0,
      mean: 0,
      p50: 0,
      p90: 0,
      p99: 0,
      max: 0,
    });
    histogram.record(12);
    histogram.reset();
    expect(histogram.summary().count).toBe(0);
    histogram.record(3);
    expect(histogram.summary()).toMatchObject({ count: 1, min: 3, max: 3, p50: 3 });
  });

  it('refuses nonsensical options', () => {
    expect(() => new LatencyHistogram({ relativeError: 0 })).toThrow(RangeError);
    expect(() => new LatencyHistogram({ relativeError: 1 })).toThrow(RangeError);
    expect(() => new LatencyHistogram({ minMs: 10, maxMs: 1 })).toThrow(RangeError);
    expect(() => new LatencyHistogram({ maxMs: Infinity })).toThrow(RangeError);
  });
});

describe('HostMetrics', () => {
  const sample = (overrides: Partial<CallSample> = {}): CallSample => ({
    server: 'files',
    tool: 'mcp__files__read',
    durationMs: 10,
    outcome: 'ok',
    ...overrides,
  });

  it('counts calls by outcome and errors by code, per tool, per server and in total', () => {
    const metrics = new HostMetrics();
    metrics.recordCall(sample({ bytesIn: 100, bytesOut: 20 }));
    metrics.recordCall(sample({ outcome: 'tool_error', durationMs: 20, bytesIn: 50 }));
    metrics.recordCall(sample({ outcome: 'error', errorCode: 'PROCESS_EXITED', durationMs: 30 }));
    metrics.recordCall(sample({ outcome: 'error', errorCode: 'jsonrpc:-32602' }));
    metrics.recordCall(sample({ outcome: 'error' }));
    metrics.recordCall(sample({ outcome: 'timeout', durationMs: 5000 }));
    metrics.recordCall(sample({ outcome: 'cancelled', tool: 'mcp__files__write', bytesOut: 7 }));
    metrics.recordCall(sample({ server: 'memory', tool: 'mcp__memory__get', durationMs: 2 }));

    const snapshot = metrics.snapshot();
    expect(snapshot.tools['mcp__files__read']).toMatchObject({
      server: 'files',
      calls: 6,
      ok: 1,
      toolErrors: 1,
      errors: 3,
      timeouts: 1,
      cancelled: 0,
      errorCodes: { PROCESS_EXITED: 1, 'jsonrpc:-32602': 1, UNKNOWN: 1 },
      bytesIn: 150,
      bytesOut: 20,
      latencyMs: { count: 6, min: 10, max: 5000 },
    });
    expect(snapshot.servers['files']).toMatchObject({ calls: 7, cancelled: 1, bytesOut: 27 });
    expect(snapshot.servers['memory']).toMatchObject({ calls: 1, ok: 1, latencyMs: { p50: 2 } });
    expect(snapshot.total).toMatchObject({ calls: 8, ok: 2, errors: 3, timeouts: 1, cancelled: 1 });
    expect(Object.keys(snapshot.tools).sort()).toEqual([
      'mcp__files__read',
      'mcp__files__write',
      'mcp__memory__get',
    ]);
    expect(Date.parse(snapshot.since)).not.toBeNaN();
  });

  it('snapshots plain JSON, with hostile names as ordinary keys', () => {
    const metrics = new HostMetrics();
    metrics.recordCall(sample({ server: '__proto__', tool: '__proto__' }));
    metrics.recordCall(sample({ server: 'constructor', tool: 'toString' }));
    const snapshot = metrics.snapshot();
    expect(Object.getPrototypeOf(snapshot.tools)).toBe(Object.prototype);
    expect(Object.keys(snapshot.tools)).toEqual(['__proto__', 'toString']);
    expect(Object.keys(snapshot.servers)).toEqual(['__proto__', 'constructor']);
    expect(snapshot.tools['__proto__']).toMatchObject({ calls: 1 });
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
  });

  it('stays bounded: tools past maxTools and error codes past maxErrorCodes share one entry', () => {
    const metrics = new HostMetrics({ maxTools: 3, maxErrorCodes: 2 });
    for (let index = 0; index < 100_000; index++)
      metrics.recordCall(
        sample({
          tool: `tool_${index % 1000}`,
          outcome: 'error',
          errorCode: `jsonrpc:${index % 500}`,
        }),
      );
    const snapshot = metrics.snapshot();
    expect(Object.keys(snapshot.tools)).toEqual(['tool_0', 'tool_1', 'tool_2', OTHER_TOOLS]);
    expect(snapshot.tools[OTHER_TOOLS]!.calls).toBe(100_000 - 3 * 100);
    const codes = snapshot.servers['files']!.errorCodes;
    expect(Object.keys(codes)).toEqual(['jsonrpc:0', 'jsonrpc:1', OTHER_ERROR_CODE]);
    expect(codes[OTHER_ERROR_CODE]).toBe(100_000 - 2 * 200);
    expect(snapshot.total.calls).toBe(100_000);
  });

  it('keeps percentiles within 1% per tool', () => {
    const metrics = new HostMetrics();
    for (let ms = 1; ms <= 1000; ms++) metrics.recordCall(sample({ durationMs: ms }));
    const latency = metrics.snapshot().tools['mcp__files__read']!.latencyMs;
    expectWithin(latency.p50, 500, 0.01);
    expectWithin(latency.p90, 900, 0.01);
    expectWithin(latency.p99, 990, 0.01);
    expect(latency.max).toBe(1000);
  });

  it('counts native tools (no server) under (native)', () => {
    const metrics = new HostMetrics();
    metrics.recordCall(sample({ server: undefined, tool: 'search' }));
    const snapshot = metrics.snapshot();
    expect(snapshot.servers[NATIVE_SERVER]).toMatchObject({ calls: 1 });
    expect(snapshot.tools['search']).toMatchObject({ server: NATIVE_SERVER, calls: 1 });
  });

  it('forgets a removed server with its tools, and reset() forgets everything', () => {
    const metrics = new HostMetrics();
    metrics.recordCall(sample());
    metrics.recordCall(sample({ server: 'memory', tool: 'mcp__memory__get' }));
    metrics.deleteServer('files');
    let snapshot = metrics.snapshot();
    expect(Object.keys(snapshot.servers)).toEqual(['memory']);
    expect(Object.keys(snapshot.tools)).toEqual(['mcp__memory__get']);
    expect(snapshot.total.calls).toBe(2);
    metrics.reset();
    snapshot = metrics.snapshot();
    expect(snapshot).toMatchObject({ servers: {}, tools: {}, total: { calls: 0 } });
  });
});

describe('classifyCallError', () => {
  it('maps cancel, timeout, local and remote errors', () => {
    expect(classifyCallError(new McpHostError('ABORTED', 'x'))).toEqual({
      outcome: 'cancelled',
      errorCode: 'ABORTED',
    });
    expect(classifyCallError(new McpHostError('REQUEST_TIMEOUT', 'x'))).toEqual({
      outcome: 'timeout',
      errorCode: 'REQUEST_TIMEOUT',
    });
    expect(classifyCallError(new McpHostError('CONNECTION_CLOSED', 'x'))).toEqual({
      outcome: 'error',
      errorCode: 'CONNECTION_CLOSED',
    });
    expect(classifyCallError(new JsonRpcError(-32602, 'bad params'))).toEqual({
      outcome: 'error',
      errorCode: 'jsonrpc:-32602',
    });
    expect(classifyCallError(new Error('?'))).toEqual({ outcome: 'error', errorCode: 'UNKNOWN' });
  });
});
