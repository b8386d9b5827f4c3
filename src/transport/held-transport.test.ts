import { describe, expect, it } from 'vitest';
import { McpHostError } from '../errors/mcp-host-error.js';
import { silentLogger } from '../internal/logger.js';
import type { JsonRpcMessage } from '../jsonrpc/message.js';
import type { Transport, TransportState } from '../jsonrpc/transport.js';
import { TransportEvents } from './transport-events.js';
import { HeldTransport } from './held-transport.js';
import { listen } from '../../test/helpers/transport-events.js';

/** A transport the test drives by hand: it starts when told, and fires what the test fires. */
class HandDriven implements Transport {
  state: TransportState = 'new';
  readonly events = new TransportEvents(silentLogger, 'hand');
  readonly sent: JsonRpcMessage[] = [];
  readonly onMessage = this.events.message.event;
  readonly onProblem = this.events.problem.event;
  readonly onClose = this.events.close.event;
  #started!: () => void;
  readonly started = new Promise<void>((resolve) => (this.#started = resolve));

  start(): Promise<void> {
    this.state = 'open';
    this.#started();
    return Promise.resolve();
  }
  send(message: JsonRpcMessage): void {
    this.sent.push(message);
  }
  close(): Promise<void> {
    if (this.state !== 'closed') {
      this.state = 'closed';
      this.events.closed(undefined);
    }
    return Promise.resolve();
  }
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

const options = { serverName: 'early', logger: silentLogger };

describe('HeldTransport', () => {
  it('keeps what arrives before the handover and gives it, in order, at start()', async () => {
    const inner = new HandDriven();
    const held = new HeldTransport(Promise.resolve(inner), options);
    await inner.started;
    inner.events.message.fire({ jsonrpc: '2.0', method: 'early/one' });
    inner.events.reportProblem(new McpHostError('INVALID_MESSAGE', 'junk'));
    inner.events.message.fire({ jsonrpc: '2.0', method: 'early/two' });

    const seen = listen(held);
    expect(held.state).toBe('new'); // a taker starts it as it would any new transport
    expect(seen).toEqual([]);
    await held.start();
    expect(seen).toEqual([
      'message {"jsonrpc":"2.0","method":"early/one"}',
      'problem INVALID_MESSAGE',
      'message {"jsonrpc":"2.0","method":"early/two"}',
    ]);
    expect(held.state).toBe('open');

    // From then on, everything passes straight through, both ways.
    inner.events.message.fire({ jsonrpc: '2.0', method: 'live' });
    expect(seen.at(-1)).toBe('message {"jsonrpc":"2.0","method":"live"}');
    held.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(inner.sent).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    await held.close();
    expect(seen.at(-1)).toBe('close local');
  });

  it('a server that ended before the handover is seen ending, after what it said', async () => {
    const inner = new HandDriven();
    const held = new HeldTransport(Promise.resolve(inner), options);
    await inner.started;
    inner.events.message.fire({ jsonrpc: '2.0', method: 'last/words' });
    inner.state = 'closed';
    inner.events.closed(new McpHostError('PROCESS_EXITED', 'process exited with code 3'));

    const seen = listen(held);
    await held.start();
    expect(seen).toEqual([
      'message {"jsonrpc":"2.0","method":"last/words"}',
      'close PROCESS_EXITED',
    ]);
    expect(held.state).toBe('closed');
  });

  it('refuses to send before start() and hands a failed start to its taker', async () => {
    const failure = new McpHostError('SPAWN_FAILED', 'no such command: nope', {
      serverName: 'early',
    });
    const held = new HeldTransport(Promise.reject(failure), options);
    expect(() => held.send({ jsonrpc: '2.0', method: 'x' })).toThrow(
      expect.objectContaining({ code: 'NOT_CONNECTED', serverName: 'early' }) as Error,
    );
    await expect(held.start()).rejects.toBe(failure);
    await expect(held.close()).resolves.toBeUndefined();
  });
});

describe('HeldTransport.start and its signal', () => {
  it('rejects at once with ABORTED (the reason as cause) and closes the early transport', async () => {
    const inner = new HandDriven();
    let made!: (transport: Transport) => void;
    const held = new HeldTransport(new Promise<Transport>((resolve) => (made = resolve)), options);
    const controller = new AbortController();
    const starting = held.start({ signal: controller.signal });
    const reason = new Error('the connect deadline passed');
    controller.abort(reason);
    await expect(starting).rejects.toMatchObject({
      code: 'ABORTED',
      serverName: 'early',
      cause: reason,
    });
    // The spawn completes after its taker gave up: the transport is closed, not left running.
    const closed = new Promise((resolve) => inner.onClose(resolve));
    made(inner);
    await closed;
    expect(inner.state).toBe('closed');
  });

  it('an already aborted signal rejects without waiting for the early start', async () => {
    const held = new HeldTransport(new Promise<Transport>(() => {}), options);
    const reason = new Error('cancelled');
    await expect(held.start({ signal: AbortSignal.abort(reason) })).rejects.toMatchObject({
      code: 'ABORTED',
      cause: reason,
    });
  });
});
