// (c) The HTTP floor: node:http `http.request` over a keep-alive Agent with no socket limit, one
// POST per message, the body read into a list of chunks and parsed once. No library, no
// validation, no deadlines. (Reads the echo server's one-event SSE answers too, for `--sse`.)
import http from 'node:http';
import { INITIALIZE_PARAMS } from '../handshake.mjs';

/** Does the MCP handshake with the server at `url`, and returns `call(args)` for the echo tool. */
export async function connect({ url }) {
  const { hostname, port, pathname } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  let nextId = 1;
  let protocolVersion;

  const post = (message) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(message);
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': Buffer.byteLength(body),
      };
      if (protocolVersion !== undefined) headers['mcp-protocol-version'] = protocolVersion;
      const req = http.request(
        { agent, hostname, port, path: pathname, method: 'POST', headers },
        (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () => {
            if (res.statusCode === 202) return resolve(undefined);
            let text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString();
            // The echo server's --sse variant: one `event: message` whose data is the response.
            if (res.headers['content-type'] === 'text/event-stream') {
              text = text.slice(text.indexOf('data: ') + 6, text.indexOf('\n\n'));
            }
            const reply = JSON.parse(text);
            if (reply.error !== undefined) reject(new Error(reply.error.message));
            else resolve(reply.result);
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  const request = (method, params) => post({ jsonrpc: '2.0', id: nextId++, method, params });

  const init = await request('initialize', INITIALIZE_PARAMS);
  protocolVersion = init.protocolVersion;
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    call: (toolArgs) => request('tools/call', { name: 'echo', arguments: toolArgs }),
    close: async () => agent.destroy(),
  };
}
