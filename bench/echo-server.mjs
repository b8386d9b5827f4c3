// The one MCP server every benchmarked client talks to: plain Node, no dependencies.
//
// Newline-delimited JSON-RPC on stdin/stdout. It answers `initialize` (echoing the client's
// protocol version), `ping`, `tools/list` and `tools/call` on the `echo` tool, ignores
// notifications, and exits when stdin ends. `tools/call` returns `arguments.text`, or, when
// `arguments.size` is given, a cached ASCII string of that many bytes. Everything answered while
// handling one stdin chunk goes out in one write, so the server is never the bottleneck.

const SERVER_INFO = { name: 'bench-echo-server', version: '1.0.0' };
const ECHO_TOOL = {
  name: 'echo',
  description: 'Returns its text argument, or a string of `size` bytes.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string' }, size: { type: 'integer', minimum: 0 } },
  },
};

/** Everything of a big response after its id, as bytes, per size (built once). */
const bigTails = new Map();

function bigTail(size) {
  let tail = bigTails.get(size);
  if (tail === undefined) {
    const pattern = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    const text = pattern.repeat(Math.ceil(size / pattern.length)).slice(0, size);
    tail = Buffer.from(`,"result":{"content":[{"type":"text","text":"${text}"}]}}\n`);
    bigTails.set(size, tail);
  }
  return tail;
}

/** Responses of the current tick: strings, or Buffers for big results. */
let queue = [];
let scheduled = false;

function send(line) {
  queue.push(line);
  if (!scheduled) {
    scheduled = true;
    process.nextTick(flush);
  }
}

function flush() {
  scheduled = false;
  const out = queue;
  queue = [];
  if (out.every((item) => typeof item === 'string')) {
    process.stdout.write(out.join(''));
    return;
  }
  process.stdout.cork();
  for (const item of out) process.stdout.write(item);
  process.stdout.uncork();
}

function reply(id, result) {
  send(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
}

function replyError(id, code, message) {
  send(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
}

function callTool(id, params) {
  const args = params?.arguments ?? {};
  if (params?.name !== 'echo') return replyError(id, -32602, `Unknown tool: ${params?.name}`);
  if (typeof args.size === 'number') {
    send(`{"jsonrpc":"2.0","id":${JSON.stringify(id)}`);
    send(bigTail(args.size));
    return;
  }
  reply(id, { content: [{ type: 'text', text: String(args.text ?? '') }] });
}

function handle(message) {
  const { id, method, params } = message;
  if (id === undefined || id === null) return; // a notification (or a stray response): ignored
  switch (method) {
    case 'initialize':
      return reply(id, {
        protocolVersion: params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: SERVER_INFO,
      });
    case 'ping':
      return reply(id, {});
    case 'tools/list':
      return reply(id, { tools: [ECHO_TOOL] });
    case 'tools/call':
      return callTool(id, params);
    default:
      return replyError(id, -32601, `Method not found: ${method}`);
  }
}

function onLine(line) {
  if (line.trim() === '') return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return replyError(null, -32700, 'Parse error');
  }
  for (const item of Array.isArray(message) ? message : [message]) handle(item);
}

// Linear newline framing: unfinished pieces are kept in a list and joined once.
let pieces = [];
process.stdin.on('data', (chunk) => {
  let start = 0;
  for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
    const part = chunk.subarray(start, nl);
    if (pieces.length === 0) {
      onLine(part.toString('utf8'));
    } else {
      pieces.push(part);
      onLine(Buffer.concat(pieces).toString('utf8'));
      pieces = [];
    }
    start = nl + 1;
  }
  if (start < chunk.length) pieces.push(chunk.subarray(start));
});
// With stdin ended and nothing left to write, the event loop empties and the process exits.
process.stdin.on('end', () => {
  if (pieces.length > 0) onLine(Buffer.concat(pieces).toString('utf8'));
  flush();
});
process.stdout.on('error', () => process.exit(0));
