/**
 * Per-tool, per-server and total call counters with latency percentiles, in bounded memory.
 * `recordCall` is on the host's hot path: two map lookups, a few additions and one `Math.log`, no
 * allocation once a tool has been seen (its first call allocates its counters and histogram).
 */
import { NATIVE_SERVER, type CallOutcome } from './call-outcome.js';
import {
  LatencyHistogram,
  type LatencyHistogramOptions,
  type LatencySummary,
} from './latency-histogram.js';

/** One finished tool call, as the host reports it. */
export interface CallSample {
  /** The server's key in the host's configuration; `undefined` for a native tool. */
  server: string | undefined;
  /** The tool's exposed (namespaced) name, unique across servers: the key of `tools`. */
  tool: string;
  /** From the call's start to its outcome; every outcome is counted in the latency. */
  durationMs: number;
  outcome: CallOutcome;
  /** For `error`: the `McpHostError` code or `jsonrpc:<code>` (see `classifyCallError`). */
  errorCode?: string;
  /** Bytes received from the server (the result). */
  bytesIn?: number;
  /** Bytes sent to the server (the arguments). */
  bytesOut?: number;
  /** The result was over the result budget and cut (`maxResultBytes`). */
  truncated?: boolean;
}

export interface CallStatsSnapshot {
  calls: number;
  ok: number;
  /** Results with `isError: true`. */
  toolErrors: number;
  /** Local failures and error responses; broken down by code in `errorCodes`. */
  errors: number;
  timeouts: number;
  cancelled: number;
  /** `errors` by code; at most `maxErrorCodes` codes, the rest counted under `OTHER`. */
  errorCodes: Record<string, number>;
  /** Results cut to the result budget (`maxResultBytes`) before they were handed on. */
  truncated: number;
  bytesIn: number;
  bytesOut: number;
  latencyMs: LatencySummary;
}

export interface ToolStatsSnapshot extends CallStatsSnapshot {
  /** The server of the tool's latest call. */
  server: string;
}

/** Plain JSON: safe to `JSON.stringify`, to send, to compare. */
export interface MetricsSnapshot {
  /** When counting started (construction or the last `reset()`), ISO 8601. */
  since: string;
  total: CallStatsSnapshot;
  /** By server key; native tools under `(native)` (`NATIVE_SERVER`). */
  servers: Record<string, CallStatsSnapshot>;
  tools: Record<string, ToolStatsSnapshot>;
}

export interface HostMetricsOptions {
  /** The latency histograms' accuracy and range (see `LatencyHistogram`). */
  histogram?: LatencyHistogramOptions;
  /** Distinct tools counted on their own; later ones share {@link OTHER_TOOLS}. */
  maxTools?: number;
  /** Distinct error codes counted per tool or server; later ones share `OTHER`. */
  maxErrorCodes?: number;
}

export const HOST_METRICS_DEFAULTS = {
  maxTools: 10_000,
  maxErrorCodes: 32,
} as const;

/** The key under which tools past `maxTools` are counted (never a valid exposed tool name). */
export const OTHER_TOOLS = '(other)';
/** The error code under which codes past `maxErrorCodes` are counted. */
export const OTHER_ERROR_CODE = 'OTHER';

class CallStats {
  calls = 0;
  ok = 0;
  toolErrors = 0;
  errors = 0;
  timeouts = 0;
  cancelled = 0;
  truncated = 0;
  bytesIn = 0;
  bytesOut = 0;
  readonly errorCodes = new Map<string, number>();
  readonly latency: LatencyHistogram;

  constructor(
    histogram: LatencyHistogramOptions | undefined,
    public server = '',
  ) {
    this.latency = new LatencyHistogram(histogram);
  }

  record(sample: CallSample, bucket: number, maxErrorCodes: number): void {
    this.calls += 1;
    switch (sample.outcome) {
      case 'ok':
        this.ok += 1;
        break;
      case 'tool_error':
        this.toolErrors += 1;
        break;
      case 'error': {
        this.errors += 1;
        const codes = this.errorCodes;
        let code = sample.errorCode ?? 'UNKNOWN';
        let count = codes.get(code);
        if (count === undefined && codes.size >= maxErrorCodes) {
          code = OTHER_ERROR_CODE;
          count = codes.get(code);
        }
        codes.set(code, (count ?? 0) + 1);
        break;
      }
      case 'timeout':
        this.timeouts += 1;
        break;
      case 'cancelled':
        this.cancelled += 1;
        break;
    }
    if (sample.truncated === true) this.truncated += 1;
    if (sample.bytesIn !== undefined && sample.bytesIn > 0) this.bytesIn += sample.bytesIn;
    if (sample.bytesOut !== undefined && sample.bytesOut > 0) this.bytesOut += sample.bytesOut;
    this.latency.recordInBucket(bucket, sample.durationMs);
  }

  snapshot(): CallStatsSnapshot {
    return {
      calls: this.calls,
      ok: this.ok,
      toolErrors: this.toolErrors,
      errors: this.errors,
      timeouts: this.timeouts,
      cancelled: this.cancelled,
      errorCodes: Object.fromEntries(this.errorCodes),
      truncated: this.truncated,
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      latencyMs: this.latency.summary(),
    };
  }
}

/**
 * Counters and latency percentiles of tool calls, per tool, per server and in total. Memory is
 * bounded: one `LatencyHistogram` (about 9 KiB with the defaults) per tool, per server and one
 * for the total, at most `maxTools` tools and `maxErrorCodes` codes per entry.
 */
export class HostMetrics {
  readonly #histogram: LatencyHistogramOptions | undefined;
  readonly #maxTools: number;
  readonly #maxErrorCodes: number;
  readonly #servers = new Map<string, CallStats>();
  readonly #tools = new Map<string, CallStats>();
  #total: CallStats;
  #since = Date.now();

  constructor(options: HostMetricsOptions = {}) {
    this.#histogram = options.histogram;
    this.#maxTools = options.maxTools ?? HOST_METRICS_DEFAULTS.maxTools;
    this.#maxErrorCodes = options.maxErrorCodes ?? HOST_METRICS_DEFAULTS.maxErrorCodes;
    this.#total = new CallStats(this.#histogram);
  }

  recordCall(sample: CallSample): void {
    const serverName = sample.server ?? NATIVE_SERVER;
    let server = this.#servers.get(serverName);
    if (server === undefined) {
      server = new CallStats(this.#histogram, serverName);
      this.#servers.set(serverName, server);
    }
    let tool = this.#tools.get(sample.tool);
    if (tool === undefined) {
      const key = this.#tools.size >= this.#maxTools ? OTHER_TOOLS : sample.tool;
      tool = this.#tools.get(key);
      if (tool === undefined) {
        tool = new CallStats(this.#histogram, serverName);
        this.#tools.set(key, tool);
      }
    }
    if (tool.server !== serverName) tool.server = serverName;
    // All histograms share their options: one bucket computation (one Math.log) serves the three.
    const bucket = this.#total.latency.bucketOf(sample.durationMs);
    const maxErrorCodes = this.#maxErrorCodes;
    server.record(sample, bucket, maxErrorCodes);
    tool.record(sample, bucket, maxErrorCodes);
    this.#total.record(sample, bucket, maxErrorCodes);
  }

  snapshot(): MetricsSnapshot {
    // Object.fromEntries defines own properties: a tool named `__proto__` stays a plain key.
    return {
      since: new Date(this.#since).toISOString(),
      total: this.#total.snapshot(),
      servers: Object.fromEntries(
        [...this.#servers].map(([name, stats]) => [name, stats.snapshot()]),
      ),
      tools: Object.fromEntries(
        [...this.#tools].map(([name, stats]) => [
          name,
          { server: stats.server, ...stats.snapshot() },
        ]),
      ),
    };
  }

  /** Forgets a removed server and the tools whose latest call went to it (not the total). */
  deleteServer(server: string): void {
    this.#servers.delete(server);
    for (const [name, stats] of this.#tools) if (stats.server === server) this.#tools.delete(name);
  }

  /** Starts counting afresh. */
  reset(): void {
    this.#servers.clear();
    this.#tools.clear();
    this.#total = new CallStats(this.#histogram);
    this.#since = Date.now();
  }
}
