/**
 * Quick start: talk to the official MCP "everything" server over stdio with mcp-host's JSON-RPC
 * peer, and print what it answers. Run it with `npm start`.
 *
 * This example speaks MCP by hand (initialize, tools/list, tools/call) on the protocol-neutral
 * peer; the McpClient of a later release does this for you.
 */
import { createRequire } from 'node:module';
import { JsonRpcPeer, type JsonObject } from '../src/index.js';
import { StdioTransport } from '../src/stdio.js';

interface Tool {
  name: string;
  description?: string;
}

const serverPath = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

const transport = new StdioTransport({
  serverName: 'everything',
  command: process.execPath,
  args: [serverPath, 'stdio'],
});
const peer = new JsonRpcPeer(transport, {
  serverName: 'everything',
  requestTimeoutMs: 10_000,
  conventions: {
    cancel: {
      method: 'notifications/cancelled',
      toParams: (requestId, reason) => ({ requestId, reason }),
      requestIdOf: (params) => (params as { requestId?: number }).requestId,
    },
  },
});

const started = performance.now();
await peer.start();
const init = await peer.request<{
  protocolVersion: string;
  serverInfo: { name: string; version: string };
}>(
  'initialize',
  {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'mcp-host-quickstart', version: '0.1.0' },
  },
  { sendCancel: false },
);
peer.notify('notifications/initialized');
const ready = performance.now();

console.log(
  `Connected to ${init.serverInfo.name} ${init.serverInfo.version} (pid ${transport.pid})`,
);
console.log(`protocol ${init.protocolVersion}, handshake in ${(ready - started).toFixed(0)} ms\n`);

const { tools } = await peer.request<{ tools: Tool[] }>('tools/list', {});
const width = Math.max(...tools.map((tool) => tool.name.length));
console.log(`${tools.length} tools:`);
for (const tool of tools) {
  const description = (tool.description ?? '').split('\n')[0]!.slice(0, 70);
  console.log(`  ${tool.name.padEnd(width)}  ${description}`);
}

const args: JsonObject = { message: 'Hello from mcp-host' };
const echo = await peer.request<{ content: { type: string; text?: string }[] }>('tools/call', {
  name: 'echo',
  arguments: args,
});
console.log(
  `\ntools/call echo -> ${echo.content.map((part) => part.text ?? `[${part.type}]`).join(' ')}`,
);

const { resources } = await peer.request<{ resources: { uri: string }[] }>('resources/list', {});
console.log(
  `resources/list -> ${resources.length} resources, first: ${resources[0]?.uri ?? 'none'}`,
);

const { prompts } = await peer.request<{ prompts: { name: string }[] }>('prompts/list', {});
console.log(`prompts/list -> ${prompts.map((prompt) => prompt.name).join(', ')}`);

// close() ends stdin, waits for the server to exit (SIGTERM, then SIGKILL, if it does not),
// and leaves no process of its tree behind.
const closing = performance.now();
await peer.close();
console.log(`\nclosed in ${(performance.now() - closing).toFixed(0)} ms`);
