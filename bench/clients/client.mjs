// (a') This package's full client path: McpClient over StdioTransport, from the built dist/.
// Everything an application goes through: the era-aware request (legacy era pinned, so connect
// skips the server/discover probe), the peer with MCP's cancellation and progress conventions,
// and callTool's result checks (a content array; structuredContent when the tool declared an
// outputSchema, which the echo tool does not). McpClient comes from `mcp-host/client`, the entry
// for programs that talk to one server (the root entry's class, without the host's code).
import { McpClient } from 'mcp-host/client';
import { StdioTransport } from 'mcp-host/stdio';
import { INITIALIZE_PARAMS } from './handshake.mjs';

/** Spawns the server, does the MCP handshake, and returns `call(args)` for the echo tool. */
export async function connect({ command, args, maxMessageBytes }) {
  const client = new McpClient({
    serverName: 'echo',
    transport: () => new StdioTransport({ command, args, serverName: 'echo', maxMessageBytes }),
    era: 'legacy',
    clientInfo: INITIALIZE_PARAMS.clientInfo,
  });
  await client.connect();
  return {
    pid: client.pid,
    call: (toolArgs) => client.callTool('echo', toolArgs),
    list: async () => (await client.listTools()).tools,
    close: () => client.close(),
  };
}
