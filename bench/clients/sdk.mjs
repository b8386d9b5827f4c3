// (b) The official SDK client (devDependency): Client.connect() does the handshake, callTool()
// validates the result against CallToolResultSchema.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/**
 * The SDK's stdio read buffer holds at most 10 MiB by default and closes the connection on a
 * larger message; the 10 MiB result (10 MiB of text plus its envelope) needs it raised.
 */
export const SDK_MAX_BUFFER_BYTES = 64 * 1024 * 1024;

/** Spawns the server, does the MCP handshake, and returns `call(args)` for the echo tool. */
export async function connect({ command, args }) {
  const transport = new StdioClientTransport({
    command,
    args,
    stderr: 'inherit',
    maxBufferSize: SDK_MAX_BUFFER_BYTES,
  });
  const client = new Client({ name: 'mcp-host-bench', version: '1.0.0' });
  await client.connect(transport);
  return {
    pid: transport.pid ?? undefined,
    call: (toolArgs) => client.callTool({ name: 'echo', arguments: toolArgs }),
    list: async () => (await client.listTools()).tools,
    close: () => client.close(),
  };
}
