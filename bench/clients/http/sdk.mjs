// (b) The official SDK client over HTTP (devDependency): Client + StreamableHTTPClientTransport
// (undici's global fetch). Client.connect() does the handshake, callTool() validates the result
// against CallToolResultSchema.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** Does the MCP handshake with the server at `url`, and returns `call(args)` for the echo tool. */
export async function connect({ url }) {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'mcp-host-bench', version: '1.0.0' });
  await client.connect(transport);
  return {
    call: (toolArgs) => client.callTool({ name: 'echo', arguments: toolArgs }),
    close: () => client.close(),
  };
}
