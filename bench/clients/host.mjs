// (a'') The host's path: McpHost.callTool over one stdio server (the same StdioTransport), at the
// host's defaults: the per-server limit (maxInFlight 128) and its queue, argument validation,
// metrics and the result budget (turned off only for the large-result scenarios, whose results
// are over its 1 MiB default). `start()` lists the server's tools, as a host does before calling.
import { McpHost } from 'mcp-host';
import { INITIALIZE_PARAMS } from './handshake.mjs';

/** Starts a host with the echo server, and returns `call(args)` for its echo tool. */
export async function connect({ command, args, maxMessageBytes, largeResults = false }) {
  const host = new McpHost({
    servers: [
      {
        name: 'echo',
        transport: { type: 'stdio', command, args, maxMessageBytes },
        client: { era: 'legacy', clientInfo: INITIALIZE_PARAMS.clientInfo },
      },
    ],
    ...(largeResults ? { maxResultBytes: 0 } : {}),
  });
  await host.start();
  const [tool] = host.tools();
  return {
    pid: host.status().find((status) => status.name === 'echo')?.pid,
    call: (toolArgs) => host.callTool(tool.name, toolArgs),
    list: async () => host.tools(),
    close: () => host.close(),
  };
}
