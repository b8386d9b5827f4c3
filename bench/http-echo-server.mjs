// The one Streamable HTTP MCP server every HTTP client of the benchmark talks to: plain node:http,
// no dependencies, stateless.
//
//   node bench/http-echo-server.mjs [--sse]
//
// Listens on 127.0.0.1, port 0 (the kernel picks one), and prints `{"port":N}` on stdout once
// listening; exits when stdin ends (the worker that spawned it closes it). POST /mcp takes one
// JSON-RPC message: a request is answered in an `application/json` body (with `--sse`, in a
// `text/event-stream` body of one event instead), a notification or response with 202 and no
// body. It answers `initialize` (echoing the client's protocol version), `ping`, `tools/list`
// and `tools/call` on the `echo` tool, which returns `arguments.text` or, with `arguments.size`,
// a cached ASCII string of that many bytes. No session id is handed out; an `Mcp-Session-Id` or
// `MCP-Protocol-Version` header sent anyway is ignored. GET (the optional server-to-client
// stream) and DELETE answer 405, which clients read as "not offered". Connections are kept
// alive with no request limit, so a client's keep-alive pool is never cut.
import http from 'node:http';

const SSE = process.argv.includes('--sse');
const SERVER_INFO = { name: 'bench-http-echo-server', version: '1.0.0' };
const ECHO_TOOL = {
  name: 'echo',
  description: 'Returns its text argument, or a string of `size` bytes.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string' }, size: { type: 'integer', minimum: 0 } },
  },
};

/** Everything of a big JSON response after its id, as bytes, per size (built once). */
const bigTails = new Map();

function bigTail(size) {
  let tail = bigTails.get(size);
  if (tail === undefined) {
    const pattern = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    const text = pattern.repeat(Math.ceil(size / pattern.length)).slice(0, size);
    tail = Buffer.from(`,"result":{"content":[{"type":"text","text":"${text}"}]}}`);
    bigTails.set(size, tail);
  }
  return tail;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

/** Sends one JSON-RPC response: `parts` are strings and Buffers that together make the JSON. */
function respond(res, parts) {
  if (SSE) parts = ['event: message\ndata: ', ...parts, '\n\n'];
  let length = 0;
  for (const part of parts)
    length += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
  res.writeHead(200, { ...(SSE ? SSE_HEADERS : JSON_HEADERS), 'content-length': length });
  if (parts.length === 1) {
    res.end(parts[0]);
    return;
  }
  for (const part of parts) res.write(part);
  res.end();
}

const reply = (res, id, result) => respond(res, [JSON.stringify({ jsonrpc: '2.0', id, result })]);

const replyError = (res, id, code, message) =>
  respond(res, [JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })]);

function callTool(res, id, params) {
  const args = params?.arguments ?? {};
  if (params?.name !== 'echo') return replyError(res, id, -32602, `Unknown tool: ${params?.name}`);
  if (typeof args.size === 'number') {
    return respond(res, [`{"jsonrpc":"2.0","id":${JSON.stringify(id)}`, bigTail(args.size)]);
  }
  reply(res, id, { content: [{ type: 'text', text: String(args.text ?? '') }] });
}

function handle(res, message) {
  const { id, method, params } = message ?? {};
  if (id === undefined || id === null || method === undefined) {
    // A notification (notifications/initialized, ...) or a response: accepted, no body.
    res.writeHead(202, { 'content-length': 0 });
    res.end();
    return;
  }
  switch (method) {
    case 'initialize':
      return reply(res, id, {
        protocolVersion: params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: SERVER_INFO,
      });
    case 'ping':
      return reply(res, id, {});
    case 'tools/list':
      return reply(res, id, { tools: [ECHO_TOOL] });
    case 'tools/call':
      return callTool(res, id, params);
    default:
      return replyError(res, id, -32601, `Method not found: ${method}`);
  }
}

function plain(res, status, text, headers = {}) {
  res.writeHead(status, {
    'content-type': 'text/plain',
    'content-length': text.length,
    ...headers,
  });
  res.end(text);
}

const server = http.createServer((req, res) => {
  if (req.url !== '/mcp') return plain(res, 404, 'not found');
  if (req.method !== 'POST') return plain(res, 405, 'method not allowed', { allow: 'POST' });
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let message;
    try {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      message = JSON.parse(body.toString('utf8'));
    } catch {
      return replyError(res, null, -32700, 'Parse error');
    }
    handle(res, message);
  });
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 0;
server.requestTimeout = 0;
server.maxRequestsPerSocket = 0;

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});

// The worker ends stdin to stop the server; close every connection, idle or not, and exit.
process.stdin.resume();
process.stdin.on('end', () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
