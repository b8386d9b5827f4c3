/** What the McpClient tests share: a client connected to a fake MCP server (`await using` closes both), and a tool to call. */
import { createFakeServer, type FakeMcpServerOptions } from '../../src/testing/fake-mcp-server.js';
import { McpClient } from '../../src/client/mcp-client.js';
import type { McpClientOptions } from '../../src/client/client-options.js';

export async function connect(
  server: FakeMcpServerOptions,
  client: Partial<McpClientOptions> = {},
) {
  const { server: fake, clientTransport } = await createFakeServer(server);
  const mcp = new McpClient({ transport: clientTransport, serverName: 'fake', ...client });
  return {
    fake,
    client: mcp,
    async [Symbol.asyncDispose]() {
      await mcp.close();
      await fake.close();
    },
  };
}

export const echo = { name: 'echo', inputSchema: { type: 'object' } };
