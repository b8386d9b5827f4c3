/**
 * Quick start: connect to the official MCP "everything" server over stdio with McpClient, and
 * print what it offers. Run it with `npm run quickstart`.
 *
 * The client detects the server's protocol era (a `server/discover` probe; legacy servers get
 * the `initialize` handshake), lists tools, resources and prompts, calls a tool, and closes the
 * server's whole process tree.
 */
import { createRequire } from 'node:module';
import { McpClient } from '../src/index.js';
import { StdioTransport } from '../src/stdio.js';

const serverPath = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

const client = new McpClient({
  serverName: 'everything',
  // A factory, so a legacy server that cannot stand the era probe can be started again once.
  transport: () =>
    new StdioTransport({
      serverName: 'everything',
      command: process.execPath,
      args: [serverPath, 'stdio'],
    }),
  requestTimeoutMs: 10_000,
});

const started = performance.now();
await client.connect();
const { serverInfo, version } = client.session!;
console.log(`Connected to ${serverInfo?.name} ${serverInfo?.version} (pid ${client.pid})`);
console.log(
  `era ${client.era}, protocol ${version}, connected in ${(performance.now() - started).toFixed(0)} ms\n`,
);

const { tools: tools } = await client.listTools();
const width = Math.max(...tools.map((tool) => tool.name.length));
console.log(`${tools.length} tools:`);
for (const tool of tools) {
  const description = (tool.description ?? '').split('\n')[0]!.slice(0, 70);
  console.log(`  ${tool.name.padEnd(width)}  ${description}`);
}

const echo = await client.callTool('echo', { message: 'Hello from mcp-host' });
console.log(
  `\ntools/call echo -> ${echo.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' ')}`,
);

const resources = await client.listResources();
console.log(
  `resources/list -> ${resources.resources.length} resources, first: ${resources.resources[0]?.uri ?? 'none'}`,
);

const prompts = await client.listPrompts();
console.log(`prompts/list -> ${prompts.prompts.map((prompt) => prompt.name).join(', ')}`);

// close() ends stdin, waits for the server to exit (SIGTERM, then SIGKILL, if it does not),
// and leaves no process of its tree behind.
const closing = performance.now();
await client.close();
console.log(`\nclosed in ${(performance.now() - closing).toFixed(0)} ms`);
