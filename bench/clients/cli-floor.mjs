// The floor for `mcp-host tools` (bench/cli-probe.mjs): a plain script that spawns the server,
// initialises, lists its tools and prints them, with raw JSON lines over child_process and
// nothing else: no library, no config, no validation.
//
//   node bench/clients/cli-floor.mjs [server.mjs]   (default: bench/echo-server.mjs)
//   node bench/clients/cli-floor.mjs --config one.json
//
// With --config, it first reads and resolves that config with mcp-host's own loader
// (dist/config.js: loadConfig + resolveConfig) and spawns its first server: the floor plus the
// one part of the CLI's work that a command connecting servers cannot skip.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const [command, args] =
  process.argv[2] === '--config'
    ? await fromConfig(process.argv[3])
    : [
        process.execPath,
        [process.argv[2] ?? fileURLToPath(new URL('../echo-server.mjs', import.meta.url))],
      ];
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
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

/** The command and arguments of the config's first server, as mcp-host resolves them. */
async function fromConfig(file) {
  const { loadConfig, resolveConfig } = await import('../../dist/config.js');
  const { config } = await loadConfig({ files: [file] });
  const resolved = await resolveConfig(config, { env: process.env, cwd: process.cwd() });
  const { command, args = [] } = resolved.host.servers[0].transport;
  return [command, args];
}
