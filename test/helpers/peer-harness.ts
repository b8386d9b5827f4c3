/** The harnesses the JsonRpcPeer tests share: one drives the other end by hand (outbound), one calls the peer (inbound). */
import { expect } from 'vitest';
import { McpHostError } from '../../src/errors/mcp-host-error.js';
import type { Logger } from '../../src/internal/logger.js';
import { createLinkedTransports, type InMemoryTransport } from '../../src/transport/in-memory.js';
import type { JsonRpcMessage } from '../../src/jsonrpc/message.js';
import type { JsonRpcPeerOptions } from '../../src/jsonrpc/peer-options.js';
import { JsonRpcPeer } from '../../src/jsonrpc/peer.js';
import { mcpConventions, type Wire } from './wire.js';

export const conventions = mcpConventions;

export interface Harness extends AsyncDisposable {
  peer: JsonRpcPeer;
  client: InMemoryTransport;
  /** The other end, driven by hand. */
  server: InMemoryTransport;
  /** Everything the server end received, in order. */
  received: Wire[];
  /** The next message the server end receives. */
  next(): Promise<Wire>;
  /** Sends anything (including invalid messages) from the server end. */
  send(message: unknown): void;
  /** Sends a notification from the peer and waits for the server to get it: what the peer sent before it has arrived too. */
  barrier(): Promise<void>;
}

export async function connect(options: JsonRpcPeerOptions = {}): Promise<Harness> {
  const [client, server] = createLinkedTransports();
  const peer = new JsonRpcPeer(client, options);
  await server.start();
  await peer.start();
  const received: Wire[] = [];
  const backlog: Wire[] = [];
  const waiters: ((message: Wire) => void)[] = [];
  server.onMessage((message) => {
    received.push(message as Wire);
    const waiter = waiters.shift();
    if (waiter === undefined) backlog.push(message as Wire);
    else waiter(message as Wire);
  });
  const next = (): Promise<Wire> => {
    const message = backlog.shift();
    return message !== undefined
      ? Promise.resolve(message)
      : new Promise((resolve) => waiters.push(resolve));
  };
  let barriers = 0;
  return {
    peer,
    client,
    server,
    received,
    next,
    send: (message) => server.send(message as JsonRpcMessage),
    async barrier() {
      const name = `test/barrier-${++barriers}`;
      peer.notify(name);
      for (;;) if ((await next()).method === name) return;
    },
    async [Symbol.asyncDispose]() {
      await peer.close();
      await server.close();
    },
  };
}

/** Answers every request with its params, from the server end. */
export function echoServer(h: Harness): void {
  h.server.onMessage((message) => {
    const m = message as Wire;
    if (m.id !== undefined && m.method !== undefined)
      h.send({ jsonrpc: '2.0', id: m.id, result: m.params ?? {} });
  });
}

/** Records how a promise settles, and how many times. */
export function track<T>(promise: Promise<T>): { settled: number; value?: T; error?: unknown } {
  const state: { settled: number; value?: T; error?: unknown } = { settled: 0 };
  promise.then(
    (value) => {
      state.settled++;
      state.value = value;
    },
    (error: unknown) => {
      state.settled++;
      state.error = error;
    },
  );
  return state;
}

/** The error a promise rejects with (handled from the start, so no unhandled rejection while waiting). */
export async function rejection(promise: Promise<unknown>): Promise<McpHostError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpHostError);
  return error as McpHostError;
}

export interface InboundHarness extends AsyncDisposable {
  peer: JsonRpcPeer;
  server: InMemoryTransport;
  /** Everything the server end received, in order. */
  received: Wire[];
  /** Sends anything (including invalid messages) from the server end. */
  send(message: unknown): void;
  /** Sends a request from the server end and resolves with the peer's response. */
  call(id: unknown, method: string, params?: unknown): Promise<Wire>;
  /**
   * Round-trips a ping the peer answers: everything the peer sent before answering it has reached
   * the server by then (delivery is in order).
   */
  barrier(): Promise<void>;
}

export async function connectInbound(options: JsonRpcPeerOptions = {}): Promise<InboundHarness> {
  const [client, server] = createLinkedTransports();
  const peer = new JsonRpcPeer(client, options);
  await server.start();
  await peer.start();
  const received: Wire[] = [];
  const waiters = new Map<unknown, (message: Wire) => void>();
  server.onMessage((message) => {
    const m = message as Wire;
    received.push(m);
    if (m.method === undefined && waiters.has(m.id)) {
      waiters.get(m.id)!(m);
      waiters.delete(m.id);
    }
  });
  const send = (message: unknown): void => server.send(message as JsonRpcMessage);
  const call = (id: unknown, method: string, params?: unknown): Promise<Wire> => {
    const response = new Promise<Wire>((resolve) => waiters.set(id, resolve));
    send(
      params === undefined
        ? { jsonrpc: '2.0', id, method }
        : { jsonrpc: '2.0', id, method, params },
    );
    return response;
  };
  let barriers = 0;
  peer.setRequestHandler('test/barrier', () => ({}));
  return {
    peer,
    server,
    received,
    send,
    call,
    async barrier() {
      await call(`barrier-${++barriers}`, 'test/barrier');
    },
    async [Symbol.asyncDispose]() {
      await peer.close();
      await server.close();
    },
  };
}

export function testLogger(): Logger & { warnings: unknown[][] } {
  const warnings: unknown[][] = [];
  return {
    warnings,
    debug: () => {},
    info: () => {},
    warn: (...args: unknown[]) => {
      warnings.push(args);
    },
    error: () => {},
  };
}
