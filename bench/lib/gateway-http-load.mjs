// The capacity benchmark's HTTP load on a gateway: a raw node:http client of both eras (no
// library and no validation, so the load generator's own cost stays small next to the gateway's),
// over one keep-alive Agent with no socket limit.
//
// legacy (2025-11-25): `openSession(agent, url)` POSTs `initialize` without a session id, keeps
// the `Mcp-Session-Id` the gateway gives, and sends `notifications/initialized`; then every call
// is a POST with that id (answered as an SSE stream that opens with a priming event).
// modern (2026-07-28): every call is a session-less POST carrying the era's `_meta` and headers
// (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`).
import http from 'node:http';
import { INITIALIZE_PARAMS } from '../clients/handshake.mjs';

export const MODERN_VERSION = '2026-07-28';
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientInfo': INITIALIZE_PARAMS.clientInfo,
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** One keep-alive Agent for a whole load (every lane reuses its sockets). */
export function createAgent() {
  return new http.Agent({ keepAlive: true, maxSockets: Infinity });
}

let nextId = 1;

/**
 * POSTs one JSON-RPC message; resolves to `{ status, sessionId, reply }`, `reply` being the
 * JSON-RPC response (read from a JSON body or from the SSE event that carries it), or undefined
 * for a 202.
 */
export function post(agent, url, message, headers = {}) {
  const { hostname, port, pathname } = new URL(url);
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        hostname,
        port,
        path: pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const sessionId = res.headers['mcp-session-id'];
          if (res.statusCode === 202) return resolve({ status: 202, sessionId, reply: undefined });
          const text = Buffer.concat(chunks).toString();
          try {
            const sse = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
            const reply = sse ? replyInStream(text, message.id) : JSON.parse(text);
            resolve({ status: res.statusCode, sessionId, reply });
          } catch (cause) {
            reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`, { cause }));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The response to request `id` among an SSE stream's `data:` events (the priming event is empty). */
function replyInStream(text, id) {
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '') continue;
    const message = JSON.parse(data);
    if (message.id === id) return message;
  }
  throw new Error('no response in the stream');
}

/** The result of a reply, or a thrown Error with the JSON-RPC error's message. */
function resultOf({ status, reply }) {
  if (reply === undefined) throw new Error(`no reply (HTTP ${status})`);
  if (reply.error !== undefined) throw new Error(`${reply.error.code}: ${reply.error.message}`);
  return reply.result;
}

/**
 * Opens one legacy (2025-11-25) session at `url`; resolves to `{ sessionId, request(method,
 * params) }`.
 */
export async function openSession(agent, url) {
  const init = await post(agent, url, {
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: INITIALIZE_PARAMS,
  });
  resultOf(init);
  const sessionId = init.sessionId;
  if (typeof sessionId !== 'string') throw new Error(`no Mcp-Session-Id (HTTP ${init.status})`);
  const headers = {
    'mcp-session-id': sessionId,
    'mcp-protocol-version': INITIALIZE_PARAMS.protocolVersion,
  };
  await post(agent, url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return {
    sessionId,
    request: async (method, params) =>
      resultOf(await post(agent, url, { jsonrpc: '2.0', id: nextId++, method, params }, headers)),
  };
}

/** One session-less 2026-07-28 request at `url` (a view's path, or `/mcp`). */
export async function modernRequest(agent, url, method, params = {}) {
  const name = params.name ?? params.uri;
  const headers = {
    'mcp-protocol-version': MODERN_VERSION,
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
  };
  const message = {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: { ...params, _meta: MODERN_META },
  };
  return resultOf(await post(agent, url, message, headers));
}

/** Every tool at `url`, following `nextCursor` (the gateway's pages hold 500). */
export async function listAllTools(agent, url) {
  const tools = [];
  let cursor;
  do {
    const page = await modernRequest(
      agent,
      url,
      'tools/list',
      cursor === undefined ? {} : { cursor },
    );
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}
