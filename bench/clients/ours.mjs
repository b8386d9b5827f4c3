// (a) This package: JsonRpcPeer over StdioTransport, from the built dist/ (package self-reference).
import { JsonRpcPeer } from 'mcp-host';
import { StdioTransport } from 'mcp-host/stdio';
import { INITIALIZE_PARAMS } from './handshake.mjs';

/** Spawns the server, does the MCP handshake, and returns `call(args)` for the echo tool. */
export async function connect({ command, args, maxMessageBytes }) {
  const transport = new StdioTransport({ command, args, serverName: 'echo', maxMessageBytes });
  const peer = new JsonRpcPeer(transport, { serverName: 'echo' });
  await peer.start();
  await peer.request('initialize', INITIALIZE_PARAMS);
  peer.notify('notifications/initialized');
  return {
    pid: transport.pid,
    call: (toolArgs) => peer.request('tools/call', { name: 'echo', arguments: toolArgs }),
    list: async () => (await peer.request('tools/list', {})).tools,
    close: () => peer.close(),
  };
}
