import type { Transport } from '../jsonrpc/transport.js';
// Test helper: like the tests, it may reach across layers (the shipped fakes of src/testing).
// eslint-disable-next-line no-restricted-imports
import { FakeMcpServer, type FakeMcpServerOptions, type FakeTool } from '../testing/index.js';
import { createLinkedTransports } from '../transport/in-memory.js';
import type { HostServerDefinition } from './server-definition.js';
import { McpHost } from './mcp-host.js';
import { type McpHostOptions } from './host-options.js';
import type { ServerStatus } from './slot/server-status.js';

/** Shared by the McpHost unit tests (mcp-host*.test.ts); not part of the package's API. */

export const echo = (name = 'echo'): FakeTool => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  handler: (args) => ({ content: [{ type: 'text', text: `${name}:${String(args.text)}` }] }),
});

/** A server definition whose every connect starts a fresh fake server; `servers` keeps them. */
export function fake(
  name: string,
  options: Partial<FakeMcpServerOptions> = {},
  extra: Partial<HostServerDefinition> = {},
) {
  const servers: FakeMcpServer[] = [];
  let broken: Error | undefined;
  const definition: HostServerDefinition = {
    name,
    transport: (): Transport => {
      if (broken !== undefined) throw broken;
      const [client, server] = createLinkedTransports();
      const fakeServer = new FakeMcpServer(server, {
        era: 'legacy',
        tools: [echo()],
        ...options,
      });
      void fakeServer.start();
      servers.push(fakeServer);
      return client;
    },
    ...extra,
  };
  return {
    definition,
    servers,
    breakWith(error: Error | undefined) {
      broken = error;
    },
  };
}

/** A started host with health checks off (tests drive failures themselves). */
export async function host(options: McpHostOptions): Promise<McpHost> {
  const h = new McpHost({ health: { intervalMs: 0 }, ...options });
  await h.start();
  return h;
}

/** Resolves when `host` reports `server` in `state`. */
export function stateOf(
  h: McpHost,
  server: string,
  state: ServerStatus['state'],
): Promise<ServerStatus> {
  return new Promise((resolve) => {
    const current = h.serverStatus(server);
    if (current.state === state) return resolve(current);
    const subscription = h.onServerStatus((status) => {
      if (status.name === server && status.state === state) {
        subscription.dispose();
        resolve(status);
      }
    });
  });
}

/** Resolves when `h` reports a tools change matching `test`. */
export function toolsChange(
  h: McpHost,
  test: (change: { added: string[]; removed: string[] }) => boolean,
): Promise<void> {
  return new Promise((resolve) => {
    const listener = h.onToolsChanged((change) => {
      if (!test(change)) return;
      listener.dispose();
      resolve();
    });
  });
}
