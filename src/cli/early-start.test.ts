import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../test/helpers/fixture-server.js';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import type { HostServerDefinition } from '../host/server-definition.js';
import { silentLogger } from '../internal/logger.js';
import type { JsonRpcMessage } from '../jsonrpc/message.js';
import type { Transport, TransportState } from '../jsonrpc/transport.js';
import { TransportEvents } from '../transport/transport-events.js';
import { HeldTransport, startEarly } from './early-start.js';

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

/** Everything a taker's listeners see, in order. */
function listen(transport: Transport): string[] {
  const seen: string[] = [];
  transport.onMessage((m) => seen.push(`message ${JSON.stringify(m)}`));
  transport.onProblem((p) => seen.push(`problem ${p.error.code}`));
  transport.onClose((reason) => seen.push(`close ${reason?.code ?? 'local'}`));
  return seen;
}

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

describe('startEarly', () => {
  const stdio = (name: string): HostServerDefinition => ({
    name,
    transport: { type: 'stdio', command: process.execPath, args: [fixturePath('echo')] },
  });

  it('starts only the stdio servers among the first `count` enabled ones', async () => {
    await using guard = leakGuard();
    void guard;
    const servers: HostServerDefinition[] = [
      { ...stdio('off'), enabled: false },
      { name: 'remote', transport: { type: 'http', url: 'http://127.0.0.1:9/mcp' } },
      stdio('first'),
      stdio('later'),
    ];
    const early = startEarly(servers, 2);
    try {
      const byName = new Map(early.servers.map((s) => [s.name, s]));
      expect(byName.get('off')).toBe(servers[0]);
      expect(byName.get('remote')).toBe(servers[1]);
      expect(typeof byName.get('first')!.transport).toBe('function');
      expect(byName.get('later')).toBe(servers[3]);
      expect(early.servers.map((s) => s.name)).toEqual(['off', 'remote', 'first', 'later']);
    } finally {
      await early.close();
    }
  });

  it('hands each early transport over once, closes those never taken, and leaves the taken ones to their taker', async () => {
    await using guard = leakGuard();
    const early = startEarly([stdio('taken'), stdio('untaken')], 2);
    const factory = early.servers[0]!.transport as () => Transport | Promise<Transport>;
    const taken = await factory();
    const seen = listen(taken);
    await taken.start();
    guard.trackPid((taken as HeldTransport).pid);

    // A second connect of the same server (a retry, the era fallback) gets a transport of its own.
    const fresh = await factory();
    expect(fresh).not.toBe(taken);
    expect(fresh.state).toBe('new');
    await fresh.close();

    await early.close(); // ends 'untaken' (the guard checks no child is left) and not 'taken'
    expect(taken.state).toBe('open');
    const answered = new Promise((resolve) => taken.onMessage(resolve));
    taken.send({ jsonrpc: '2.0', id: 7, method: 'echo', params: { text: 'still here' } });
    expect(await answered).toMatchObject({ id: 7, result: { text: 'still here' } });
    await taken.close();
    expect(seen.at(-1)).toBe('close local');
  });
});
