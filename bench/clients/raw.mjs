// (c) The floor: a hand-written newline-delimited JSON client with no library and no validation.
// Linear framing over a list of chunks, a Map of id -> resolver, one write per tick.
import { spawn } from 'node:child_process';
import { INITIALIZE_PARAMS } from './handshake.mjs';

/** Spawns the server, does the MCP handshake, and returns `call(args)` for the echo tool. */
export async function connect({ command, args }) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const pending = new Map();
  let nextId = 1;
  let queue = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const lines = queue;
    queue = [];
    child.stdin.write(lines.length === 1 ? lines[0] : lines.join(''));
  };

  const send = (message) => {
    queue.push(`${JSON.stringify(message)}\n`);
    if (!scheduled) {
      scheduled = true;
      process.nextTick(flush);
    }
  };

  const request = (method, params) => {
    const id = nextId++;
    send({ jsonrpc: '2.0', id, method, params });
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
  };

  const onLine = (line) => {
    const message = JSON.parse(line);
    const waiter = pending.get(message.id);
    if (waiter === undefined) return;
    pending.delete(message.id);
    if (message.error !== undefined) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result);
  };

  let pieces = [];
  child.stdout.on('data', (chunk) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      if (pieces.length === 0) {
        onLine(chunk.toString('utf8', start, nl));
      } else {
        pieces.push(chunk.subarray(start, nl));
        onLine(Buffer.concat(pieces).toString('utf8'));
        pieces = [];
      }
      start = nl + 1;
    }
    if (start < chunk.length) pieces.push(chunk.subarray(start));
  });
  void exited.then(() => {
    for (const waiter of pending.values()) waiter.reject(new Error('server exited'));
    pending.clear();
  });

  await request('initialize', INITIALIZE_PARAMS);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    pid: child.pid,
    call: (toolArgs) => request('tools/call', { name: 'echo', arguments: toolArgs }),
    list: async () => (await request('tools/list', {})).tools,
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}
