/**
 * The MCP fixture servers of test/fixtures/mcp behind an McpClient, over stdio, as `await using`
 * resources. Unlike `connectScript`, connecting is left to the test (a fault test wants the
 * failure), and every server process the client starts is kept with what it wrote on stderr, so
 * a test can read the fixture's records (`received`, `mrtr-round`, `summary`, …) and wait for one
 * instead of sleeping. Disposing closes the client and proves nothing leaked.
 */
import { fileURLToPath } from 'node:url';
import { McpClient, type JsonRpcMessage, type McpClientOptions } from '../../src/index.js';
import { StdioTransport } from '../../src/stdio.js';
import { parseRecords, type FixtureRecord } from '../fixtures/mcp/lib/record.mjs';
import { leakGuard } from './leak-guard.js';
import { RecordingTransport } from './recording-transport.js';

export type { FixtureRecord };

function fixture(file: string): string {
  return fileURLToPath(new URL(`../fixtures/mcp/${file}`, import.meta.url));
}

export const mcpFixtures = {
  legacySdk: fixture('legacy-sdk-server.mjs'),
  modernSdk: fixture('modern-sdk-server.mjs'),
  mutableSdk: fixture('mutable-sdk-server.mjs'),
  fault: fixture('mcp-fault-server.mjs'),
  conformanceBackend: fixture('conformance-backend.mjs'),
} as const;

/** One server process the client started. */
export interface FixtureProcess {
  /** What the client sent to this process. */
  readonly transport: RecordingTransport;
  /** The process id (kept after the process is gone). */
  readonly pid: number | undefined;
  /** Every stderr line, redacted by the transport. */
  readonly stderr: readonly string[];
  /** The JSON records in its stderr, optionally only those of one event. */
  records(event?: string): FixtureRecord[];
  /** The first record of `event` that matches; rejects if the process's transport closes first. */
  waitForRecord(
    event: string,
    matches?: (record: FixtureRecord) => boolean,
  ): Promise<FixtureRecord>;
}

export interface FixtureClient extends AsyncDisposable {
  readonly client: McpClient;
  /** Every process the client started, in order. */
  readonly processes: readonly FixtureProcess[];
}

class Process implements FixtureProcess {
  readonly transport: RecordingTransport;
  readonly stderr: string[] = [];
  readonly #records: FixtureRecord[] = [];
  readonly #stdio: StdioTransport;
  readonly #waiters = new Set<() => void>();
  #closed = false;

  constructor(stdio: StdioTransport, rewrite?: (message: JsonRpcMessage) => JsonRpcMessage) {
    this.#stdio = stdio;
    this.transport = new RecordingTransport(stdio, rewrite);
    stdio.onStderrLine((line) => {
      this.stderr.push(line);
      this.#records.push(...parseRecords(line));
      for (const wake of this.#waiters) wake();
    });
    stdio.onClose(() => {
      this.#closed = true;
      for (const wake of this.#waiters) wake();
    });
  }

  get pid(): number | undefined {
    return this.#stdio.pid;
  }

  records(event?: string): FixtureRecord[] {
    return this.#records.filter((r) => event === undefined || r.event === event);
  }

  waitForRecord(
    event: string,
    matches: (record: FixtureRecord) => boolean = () => true,
  ): Promise<FixtureRecord> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = this.records(event).find(matches);
        if (found === undefined && !this.#closed) return;
        this.#waiters.delete(check);
        if (found !== undefined) resolve(found);
        else reject(new Error(`the server closed without a '${event}' record`));
      };
      this.#waiters.add(check);
      check();
    });
  }
}

export interface FixtureClientOptions extends Partial<McpClientOptions> {
  /** Extra environment for the server. */
  env?: Record<string, string>;
  /** Rewrites each message the client sends before it goes out (and is recorded). */
  rewrite?: (message: JsonRpcMessage) => JsonRpcMessage;
}

/**
 * A transport factory that starts `script args` with this Node over stdio on each call and keeps
 * every process it started (what the client sent, its stderr and records): for an McpClient, or
 * for an McpHost server definition.
 */
export function fixtureTransport(
  name: string,
  script: string,
  args: readonly string[] = [],
  options: Pick<FixtureClientOptions, 'env' | 'rewrite'> = {},
): { transport: () => RecordingTransport; processes: readonly FixtureProcess[] } {
  const processes: Process[] = [];
  return {
    processes,
    transport: () => {
      const child = new Process(
        new StdioTransport({
          serverName: name,
          command: process.execPath,
          args: [script, ...args],
          env: options.env,
        }),
        options.rewrite,
      );
      processes.push(child);
      return child.transport;
    },
  };
}

/** An McpClient (not yet connected) over a factory that starts `script args` on each call. */
export function fixtureClient(
  name: string,
  script: string,
  args: readonly string[] = [],
  options: FixtureClientOptions = {},
): FixtureClient {
  const guard = leakGuard();
  const { env, rewrite, ...clientOptions } = options;
  const { transport, processes } = fixtureTransport(name, script, args, { env, rewrite });
  const client = new McpClient({
    serverName: name,
    transport,
    ...clientOptions,
  });
  return {
    client,
    processes,
    async [Symbol.asyncDispose]() {
      await client.close();
      for (const p of processes) guard.trackPid(p.pid);
      await guard[Symbol.asyncDispose]();
    },
  };
}

/** A fault scenario of `mcp-fault-server.mjs` behind a client (see fixtureClient). */
export function faultClient(
  scenario: string,
  args: readonly string[] = [],
  options: FixtureClientOptions = {},
): FixtureClient {
  return fixtureClient(scenario, mcpFixtures.fault, [scenario, ...args], options);
}

/**
 * Settles with `promise`, or rejects after `ms` naming `what`: a bound that turns a hang into a
 * failure (never a wait that papers over a race). The timer is cleared either way.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
