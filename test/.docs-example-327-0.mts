import { createInterface } from 'node:readline/promises';
import { McpClient } from 'mcp-host';
import { OAuthProvider } from 'mcp-host/auth';
import { StreamableHttpTransport } from 'mcp-host/http';

const serverUrl = process.env.MCP_SERVER_URL ?? 'https://mcp.example.com/mcp';
// No store, no fetch: the default state file's token store, and the guarded fetch.
const auth = new OAuthProvider({
  serverUrl,
  // No listener either: the person pastes the address the browser ends on.
  onAuthorizationRequired: async ({ url }) => {
    const input = createInterface({ input: process.stdin });
    try {
      return await input.question(
        `Open this URL, then paste the address you end on:\n${url.href}\n`,
      );
    } finally {
      input.close();
    }
  },
});
await using mcp = new McpClient({
  serverName: 'example',
  transport: () => new StreamableHttpTransport({ url: serverUrl, auth }),
});
await mcp.connect();
console.log(`tools: ${(await mcp.listTools()).tools.map((tool) => tool.name).join(', ')}`);
