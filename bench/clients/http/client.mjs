// (a') This package's full client path over HTTP: McpClient.callTool over StreamableHttpTransport,
// from the built dist/, the era pinned to legacy (connect sends initialize without probing with
// server/discover first), as in the stdio `client` row.
import { McpClient } from 'mcp-host';
import { StreamableHttpTransport } from 'mcp-host/http';
import { INITIALIZE_PARAMS } from '../handshake.mjs';

/** Does the MCP handshake with the server at `url`, and returns `call(args)` for the echo tool. */
export async function connect({ url, maxMessageBytes }) {
  const client = new McpClient({
    serverName: 'echo',
    transport: () => new StreamableHttpTransport({ url, serverName: 'echo', maxMessageBytes }),
    era: 'legacy',
    clientInfo: INITIALIZE_PARAMS.clientInfo,
  });
  await client.connect();
  return {
    call: (toolArgs) => client.callTool('echo', toolArgs),
    close: () => client.close(),
  };
}
