// The floor for `mcp-host tools` (bench/cli-probe.mjs): a plain script that spawns the server,
// initialises, lists its tools and prints them, with raw JSON lines over child_process and
// nothing else: no library, no config, no validation.
//
//   node bench/clients/cli-floor.mjs [server.mjs]   (default: bench/echo-server.mjs)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const server = process.argv[2] ?? fileURLToPath(new URL('../echo-server.mjs', import.meta.url));
const child = spawn(process.execPath, [server], { stdio: ['pipe', 'pipe', 'inherit'] });
let buffer = '';
const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
child.stdout.setEncoding('utf8').on('data', (text) => {
  buffer += text;
  for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (message.id === 1) {
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    } else if (message.id === 2) {
      for (const tool of message.result.tools)
        process.stdout.write(`${tool.name}\t${tool.description}\n`);
      child.stdin.end();
    }
  }
});
send({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'cli-floor', version: '1' },
  },
});
