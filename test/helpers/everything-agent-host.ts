/**
 * For the agent adapters' end-to-end tests: an McpHost over the official everything server (over
 * stdio, as users start it) whose approval hook refuses `get-env` (it would hand the model the
 * server's environment), and a fake model server, both `await using` resources that prove on
 * disposal that no process, socket or timer was left behind.
 */
import { createRequire } from 'node:module';
import { McpHost, type McpHostOptions, type ToolCallEvent } from '../../src/index.js';
import { startFakeModelServer, type FakeModelServer } from './fake-model-server.js';
import { leakGuard } from './leak-guard.js';
import { fixtureTransport } from './mcp-fixtures.js';

const require = createRequire(import.meta.url);

/** The everything server's entry script, run with this Node over stdio. */
const everythingScript = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** server-everything's tools the tests call, as the host exposes them. */
export const EVERYTHING = {
  echo: 'mcp__everything__echo',
  image: 'mcp__everything__get-tiny-image',
  /** `get-env`: the one the worlds' approval hook refuses (it would show the server's env). */
  env: 'mcp__everything__get-env',
  longRunning: 'mcp__everything__trigger-long-running-operation',
} as const;

/** A started host over server-everything (stdio); disposing closes it. */
export async function everythingHost(
  options: McpHostOptions = {},
): Promise<McpHost & AsyncDisposable> {
  const host = new McpHost({
    health: { intervalMs: 0 },
    ...options,
    servers: [
      {
        name: 'everything',
        transport: { type: 'stdio', command: process.execPath, args: [everythingScript, 'stdio'] },
      },
    ],
  });
  try {
    await host.start();
  } catch (error) {
    await host.close();
    throw error;
  }
  return Object.assign(host, { [Symbol.asyncDispose]: () => host.close() });
}

export interface AgentWorld extends AsyncDisposable {
  readonly host: McpHost;
  readonly model: FakeModelServer;
  /** Every tool call event of the host (started, completed, failed), in order. */
  readonly calls: ToolCallEvent[];
}

export async function startAgentWorld(): Promise<AgentWorld> {
  const guard = leakGuard();
  const { transport, processes } = fixtureTransport('everything', everythingScript, ['stdio']);
  const host = new McpHost({
    health: { intervalMs: 0 },
    servers: [{ name: 'everything', transport }],
    approve: (request) => request.tool.originalName !== 'get-env',
  });
  const calls: ToolCallEvent[] = [];
  const subscription = host.onToolCall((event) => calls.push(event));
  let model: FakeModelServer | undefined;
  try {
    await host.start();
    for (const p of processes) guard.trackPid(p.pid);
    model = await startFakeModelServer();
  } catch (error) {
    await host.close();
    await guard[Symbol.asyncDispose]();
    throw error;
  }
  const started = model;
  return {
    host,
    model: started,
    calls,
    async [Symbol.asyncDispose]() {
      subscription.dispose();
      await started.close();
      await host.close();
      await guard[Symbol.asyncDispose]();
    },
  };
}
