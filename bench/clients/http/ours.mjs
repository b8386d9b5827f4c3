// (a) This package over HTTP: JsonRpcPeer over StreamableHttpTransport, from the built dist/.
import { JsonRpcPeer } from 'mcp-host';
import { StreamableHttpTransport } from 'mcp-host/http';
import { INITIALIZE_PARAMS } from '../handshake.mjs';

/** Does the MCP handshake with the server at `url`, and returns `call(args)` for the echo tool. */
export async function connect({ url, maxMessageBytes }) {
  const transport = new StreamableHttpTransport({ url, serverName: 'echo', maxMessageBytes });
  const peer = new JsonRpcPeer(transport, { serverName: 'echo' });
  await peer.start();
  const result = await peer.request('initialize', INITIALIZE_PARAMS);
  // What McpClient does after initialize: send the agreed version on every later request.
  transport.setProtocolVersion(result.protocolVersion);
  peer.notify('notifications/initialized');
  return {
    call: (toolArgs) => peer.request('tools/call', { name: 'echo', arguments: toolArgs }),
    close: () => peer.close(),
  };
}
