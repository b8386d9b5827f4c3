/**
 * For the agent adapters' end-to-end tests: an McpHost over the official everything server (over
 * stdio, as users start it) whose approval hook refuses `get-env` (it would hand the model the
 * server's environment), and a fake model server, both `await using` resources that prove on
 * disposal that no process, socket or timer was left behind.
 */
import { createRequire } from 'node:module';
import { McpHost, type ToolCallEvent } from '../../src/index.js';
import { startFakeModelServer, type FakeModelServer } from './fake-model-server.js';
import { leakGuard } from './leak-guard.js';
import { fixtureTransport } from './mcp-fixtures.js';

const require = createRequire(import.meta.url);

/** The exposed names of the everything server's tools the tests call. */
export const EVERYTHING = {
  echo: 'mcp__everything__echo',
  image: 'mcp__everything__get-tiny-image',
  refused: 'mcp__everything__get-env',
} as const;

export interface AgentWorld extends AsyncDisposable {
  readonly host: McpHost;
  readonly model: FakeModelServer;
  /** Every tool call event of the host (started, completed, failed), in order. */
  readonly calls: ToolCallEvent[];
}

export async function startAgentWorld(): Promise<AgentWorld> {
  const guard = leakGuard();
  const script = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
  const { transport, processes } = fixtureTransport('everything', script, ['stdio']);
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
