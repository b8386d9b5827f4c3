/**
 * McpClient against misbehaving MCP servers (test/fixtures/mcp/mcp-fault-server.mjs): every way
 * the era probe can be answered, a server that dies on it, unsupported versions in both eras, an
 * `initialize` that is never answered, an MRTR loop that never ends, server input the client never
 * declared, a list_changed flood and tool schemas that point at the network. What the client sent
 * is checked on both sides: its own recording of the wire and the server's `received` records.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  McpClient,
  McpHostError,
  type JsonObject,
  type JsonRpcMessage,
  type ServerInputHandlers,
} from '../../src/index.js';
import { StdioTransport } from '../../src/stdio.js';
import { leakGuard } from '../helpers/leak-guard.js';
import {
  faultClient,
  fixtureClient,
  mcpFixtures,
  within,
  type FixtureProcess,
} from '../helpers/mcp-fixtures.js';
import { type FixtureRecord } from '../fixtures/mcp/lib/record.mjs';
import { MiB, peakRssWhile } from '../helpers/memory.js';
import { isRunning } from '../helpers/processes.js';
import { crashTime, now, rejectionOf, reportTiming, timed } from '../helpers/timing.js';

/** A generous bound for "at once" on a loaded 2-core machine: far below any timeout in play. */
const PROMPT_MS = 5_000;

/** The methods of the requests and notifications the server received, in order. */
function receivedMethods(child: FixtureProcess): string[] {
  return child
    .records('received')
    .flatMap((r) => (r.kind === 'response' ? [] : [String(r.method)]));
}

/** The methods the client sent on one connection, in order. */
function sentMethods(child: FixtureProcess): string[] {
  return child.transport.sent.flatMap((m) => {
    const method = (m as { method?: string }).method;
    return method === undefined ? [] : [method];
  });
}

function sentWith(
  child: FixtureProcess,
  method: string,
): { id?: string | number; params: JsonObject }[] {
  return (
    child.transport.sent as readonly {
      id?: string | number;
      method?: string;
      params?: JsonObject;
    }[]
  )
    .filter((m) => m.method === method)
    .map((m) => ({ id: m.id, params: m.params ?? {} }));
}

function expectHostError(error: unknown, code: string): asserts error is McpHostError {
  expect(error).toBeInstanceOf(McpHostError);
  expect((error as McpHostError).code).toBe(code);
}

/** Test handlers that count their calls, for proving that none ran. */
function countingHandlers(kinds: ('sampling' | 'roots' | 'form' | 'url')[]): {
  handlers: ServerInputHandlers;
  calls: string[];
} {
  const calls: string[] = [];
  const handlers: ServerInputHandlers = {};
  if (kinds.includes('sampling')) {
    handlers.sampling = () => {
      calls.push('sampling');
      return Promise.resolve({
        role: 'assistant',
        content: { type: 'text', text: 'hi' },
        model: 'test-model',
      });
    };
  }
  if (kinds.includes('roots')) {
    handlers.roots = () => {
      calls.push('roots');
      return [];
    };
  }
  const answer = (kind: string) => () => {
    calls.push(kind);
    return Promise.resolve({ action: 'accept' as const, content: { ok: true } });
  };
  if (kinds.includes('form') || kinds.includes('url')) {
    handlers.elicitation = {
      ...(kinds.includes('form') ? { form: answer('form') } : {}),
      ...(kinds.includes('url') ? { url: answer('url') } : {}),
    };
  }
  return { handlers, calls };
}

describe('the era probe answered in legacy ways', () => {
  it.each([
    ['discover-method-not-found', 'an error -32601'],
    ['discover-invalid-params', 'an error -32602'],
    ['discover-empty-result', 'an empty result {}'],
  ])('%s (%s): legacy, initialize on the same connection at once', async (scenario) => {
    // A probe timeout far above the bound below: passing proves the client did not wait for it.
    await using server = faultClient(scenario, [], { discoverTimeoutMs: 30_000 });
    const { ms, ok } = await timed(server.client.connect());
    reportTiming(`${scenario}: connect`, ms);
    expect(ok).toBe(true);
    expect(ms).toBeLessThan(PROMPT_MS);
    expect(server.client.era).toBe('legacy');
    expect(server.client.session?.version).toBe('2025-11-25');
    expect(server.processes).toHaveLength(1);
    const [child] = server.processes as [FixtureProcess];
    expect(sentMethods(child)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
    ]);
    expect((await server.client.callTool('echo', { message: 'hi' })).content).toEqual([
      { type: 'text', text: 'hi' },
    ]);
    await child.waitForRecord('received', (r) => r.method === 'tools/call');
    expect(receivedMethods(child)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'tools/call',
    ]);
  });

  it('discover-ignored (no answer): legacy right after the probe timeout', async () => {
    const discoverTimeoutMs = 300;
    await using server = faultClient('discover-ignored', [], { discoverTimeoutMs });
    const { ms, ok } = await timed(server.client.connect());
    reportTiming(`discover-ignored: connect with discoverTimeoutMs ${discoverTimeoutMs}`, ms);
    expect(ok).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(discoverTimeoutMs - 5);
    expect(ms).toBeLessThan(discoverTimeoutMs + PROMPT_MS);
    expect(server.client.era).toBe('legacy');
    expect(server.processes).toHaveLength(1);
    const [child] = server.processes as [FixtureProcess];
    const ignored = await child.waitForRecord('ignored');
    expect(ignored).toMatchObject({ method: 'server/discover' });
    // The abandoned probe is cancelled like any timed-out request; then the legacy handshake.
    expect(sentMethods(child)).toEqual([
      'server/discover',
      'notifications/cancelled',
      'initialize',
      'notifications/initialized',
    ]);
    expect(sentWith(child, 'notifications/cancelled')[0]?.params).toMatchObject({
      requestId: ignored.id,
    });
    expect((await server.client.callTool('echo', { message: 'hi' })).isError).not.toBe(true);
  });
});

describe('a legacy server that dies on the probe', () => {
  it('is started once more and opened with initialize directly; no process is left', async () => {
    await using server = faultClient('discover-crash');
    const { ms, ok } = await timed(server.client.connect());
    const connected = now();
    expect(ok).toBe(true);
    expect(server.client.era).toBe('legacy');
    expect(server.processes).toHaveLength(2);
    const [first, second] = server.processes as [FixtureProcess, FixtureProcess];

    // The first process got the probe and died of it.
    expect(receivedMethods(first)).toEqual(['server/discover']);
    const crashLine = first.stderr.find((line) => line.startsWith('[crash at='));
    expect(crashLine).toBeDefined();
    const crashedAt = crashTime(crashLine!);
    expect(isRunning(first.pid!)).toBe(false);
    reportTiming('discover-crash: whole connect (two spawns)', ms);
    reportTiming('discover-crash: crash → connected on the second process', connected - crashedAt);
    expect(ms).toBeLessThan(PROMPT_MS);

    // The second got initialize first, and no second probe.
    expect(sentMethods(second)).toEqual(['initialize', 'notifications/initialized']);
    expect((await server.client.callTool('echo', { message: 'again' })).content).toEqual([
      { type: 'text', text: 'again' },
    ]);
    await second.waitForRecord('received', (r) => r.method === 'tools/call');
    expect(receivedMethods(second)).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/call',
    ]);
    expect(server.client.pid).toBe(second.pid);
    await server.client.close();
    expect(isRunning(second.pid!)).toBe(false);
  });

  it('fails with PROCESS_EXITED when the client was given a transport instance, not a factory', async () => {
    await using _guard = leakGuard();
    // The same fixture handed over as one transport: there is nothing to restart.
    await using client = new McpClient({
      serverName: 'discover-crash',
      transport: new StdioTransport({
        serverName: 'discover-crash',
        command: process.execPath,
        args: [mcpFixtures.fault, 'discover-crash'],
      }),
    });
    const { error } = await rejectionOf(client.connect());
    expectHostError(error, 'PROCESS_EXITED');
    expect(client.state).toBe('closed');
  });
});

describe('unsupported protocol versions', () => {
  it('legacy: initialize answered with 1999-01-01 fails naming both versions', async () => {
    await using server = faultClient('legacy-bad-version');
    const { error } = await rejectionOf(server.client.connect());
    expectHostError(error, 'PROTOCOL_VERSION_UNSUPPORTED');
    expect(error.message).toContain('1999-01-01');
    expect(error.message).toContain('2025-11-25');
    expect(error.details).toMatchObject({ serverVersions: ['1999-01-01'] });
    expect(error.details?.clientVersions).toContain('2025-11-25');
    expect(server.client.state).toBe('closed');
    expect(sentMethods(server.processes[0]!)).toEqual(['server/discover', 'initialize']);
  });

  it('modern: no mutual version fails naming both, and initialize is never sent', async () => {
    await using server = faultClient('modern-no-mutual-version');
    const started = now();
    const { error, at } = await rejectionOf(server.client.connect());
    expectHostError(error, 'PROTOCOL_VERSION_UNSUPPORTED');
    expect(at - started).toBeLessThan(PROMPT_MS);
    expect(error.message).toContain('2099-01-01');
    expect(error.message).toContain('2026-07-28');
    expect(error.details).toEqual({
      serverVersions: ['2099-01-01'],
      clientVersions: ['2026-07-28'],
    });
    expect(server.processes).toHaveLength(1);
    const [child] = server.processes as [FixtureProcess];
    // A recognised modern error: no fallback to initialize, no retry without a mutual version.
    expect(sentMethods(child)).toEqual(['server/discover']);
    expect(child.records('received')).toEqual([
      expect.objectContaining({ method: 'server/discover', protocolVersion: '2026-07-28' }),
    ]);
  });

  // McpClient offers only 2026-07-28 and takes no other modern version (a pinned unknown version
  // is INVALID_ARGUMENT), so through the public API it can never be refused a first choice that
  // a mutual version would fix. To test the retry anyway, the wire is rewritten: the client's
  // messages claim 2099-01-01, and the server (which supports only 2026-07-28) answers -32022
  // naming 2026-07-28, a version the client has.
  const claim = (version: string, when: (m: { method?: string }) => boolean) => {
    return (message: JsonRpcMessage): JsonRpcMessage => {
      const m = message as { method?: string; params?: { _meta?: JsonObject } };
      if (when(m) && m.params?._meta?.['io.modelcontextprotocol/protocolVersion'] !== undefined)
        m.params._meta['io.modelcontextprotocol/protocolVersion'] = version;
      return message;
    };
  };

  it('modern: a -32022 to the probe with a mutual version is retried exactly once', async () => {
    let rewritten = 0;
    const once = claim('2099-01-01', (m) => m.method === 'server/discover' && rewritten++ === 0);
    await using server = faultClient('modern-version-retry', [], { rewrite: once });
    await server.client.connect();
    expect(server.client.era).toBe('modern');
    expect(server.client.session?.version).toBe('2026-07-28');
    const [child] = server.processes as [FixtureProcess];
    await child.waitForRecord('received', (r) => r.protocolVersion === '2026-07-28');
    const probes = child.records('received').filter((r) => r.method === 'server/discover');
    expect(probes.map((r) => r.protocolVersion)).toEqual(['2099-01-01', '2026-07-28']);
    expect(probes[0]!.id).not.toEqual(probes[1]!.id);
    expect(sentMethods(child)).not.toContain('initialize');
  });

  it('modern: a probe refused again after the retry fails, without a third attempt', async () => {
    const always = claim('2099-01-01', (m) => m.method === 'server/discover');
    await using server = faultClient('modern-version-retry', [], { rewrite: always });
    const { error } = await rejectionOf(server.client.connect());
    expectHostError(error, 'PROTOCOL_VERSION_UNSUPPORTED');
    expect(error.message).toContain('2026-07-28');
    const [child] = server.processes as [FixtureProcess];
    expect(sentMethods(child)).toEqual(['server/discover', 'server/discover']);
  });

  it('modern: a -32022 mid-session is retried once, as a new request', async () => {
    let calls = 0;
    const firstCall = claim('2099-01-01', (m) => m.method === 'tools/call' && calls++ === 0);
    await using server = faultClient('modern-version-retry', [], { rewrite: firstCall });
    await server.client.connect();
    const result = await server.client.callTool('echo', { message: 'retried' });
    expect(result.content).toEqual([{ type: 'text', text: 'retried' }]);
    const [child] = server.processes as [FixtureProcess];
    // stderr and stdout are separate pipes: wait for the record rather than assume it is in.
    await child.waitForRecord(
      'received',
      (r) => r.method === 'tools/call' && r.protocolVersion === '2026-07-28',
    );
    const toolCalls = child.records('received').filter((r) => r.method === 'tools/call');
    expect(toolCalls.map((r) => r.protocolVersion)).toEqual(['2099-01-01', '2026-07-28']);
    expect(toolCalls[0]!.id).not.toEqual(toolCalls[1]!.id);
  });

  it('modern: a call refused again after its retry fails with PROTOCOL_VERSION_UNSUPPORTED, without a third attempt', async () => {
    const always = claim('2099-01-01', (m) => m.method === 'tools/call');
    await using server = faultClient('modern-version-retry', [], { rewrite: always });
    await server.client.connect();
    const { error } = await rejectionOf(server.client.callTool('echo', { message: 'no' }));
    expectHostError(error, 'PROTOCOL_VERSION_UNSUPPORTED');
    expect(error.message).toContain('2026-07-28');
    const [child] = server.processes as [FixtureProcess];
    expect(sentWith(child, 'tools/call')).toHaveLength(2);
    // The session goes on.
    expect(await server.client.listTools()).toMatchObject({ tools: expect.any(Array) });
  });
});

describe('initialize never answered', () => {
  it('connect fails at connectTimeoutMs with REQUEST_TIMEOUT, and initialize is never cancelled', async () => {
    const connectTimeoutMs = 500;
    await using server = faultClient('initialize-never-answered', [], { connectTimeoutMs });
    const started = now();
    const { error, at } = await rejectionOf(server.client.connect());
    const ms = at - started;
    reportTiming(
      `initialize-never-answered: connect with connectTimeoutMs ${connectTimeoutMs}`,
      ms,
    );
    expectHostError(error, 'REQUEST_TIMEOUT');
    expect(ms).toBeGreaterThanOrEqual(connectTimeoutMs - 5);
    expect(ms).toBeLessThan(connectTimeoutMs + PROMPT_MS);
    expect(server.client.state).toBe('closed');
    const [child] = server.processes as [FixtureProcess];
    // The client closed the server (stdin EOF), which then wrote its summary.
    const summary = await child.waitForRecord('summary');
    expect(summary).toMatchObject({ cancelledInitialize: false });
    expect(summary.initializeIds).toHaveLength(1);
    expect(child.records('cancelled')).toEqual([]);
    expect(sentMethods(child)).toEqual(['server/discover', 'initialize']);
  });
});

/** What the mrtr fixtures issue as requestState in round `round` (see faults/mrtr.mjs). */
function trickyState(round: number): string {
  return ` round=${round} "q" \\b\\ /s+/= e\u0301 \u2028 \u{1F600} `;
}

describe('an MRTR loop that never completes', () => {
  it('stops after maxInputRounds with INPUT_ROUNDS_EXCEEDED; every round a new id and the state echoed', async () => {
    const maxInputRounds = 3;
    const { handlers, calls } = countingHandlers(['form']);
    await using server = faultClient('mrtr-loop', [], { maxInputRounds, handlers });
    await server.client.connect();
    const { error } = await rejectionOf(server.client.callTool('loop', {}));
    expectHostError(error, 'INPUT_ROUNDS_EXCEEDED');
    expect(error.details).toEqual({ maxInputRounds });
    const [child] = server.processes as [FixtureProcess];
    await child.waitForRecord('mrtr-round', (r) => r.round === maxInputRounds + 1);
    const rounds = child.records('mrtr-round');
    expect(rounds).toHaveLength(maxInputRounds + 1);
    expect(new Set(rounds.map((r) => JSON.stringify(r.id))).size).toBe(rounds.length);
    rounds.forEach((round, index) => {
      expect(round).toMatchObject({ tool: 'loop', round: index + 1, idReused: false });
      if (index === 0) {
        expect(round).toMatchObject({ requestState: null, inputResponses: null });
        return;
      }
      expect(round.stateMatches).toBe(true);
      expect(round.requestState).toBe(round.expectedState);
      expect(round.inputResponses).toEqual({
        [`confirm-${index}`]: { action: 'accept', content: { ok: true } },
      });
    });
    // Byte for byte on the wire, too.
    const sent = sentWith(child, 'tools/call').map((r) => r.params.requestState);
    expect(sent).toEqual([undefined, trickyState(1), trickyState(2), trickyState(3)]);
    expect(calls).toEqual(['form', 'form', 'form']);
  });

  it('--state-only (nothing to answer, retried at once): the default cap of 8 rounds holds', async () => {
    await using server = faultClient('mrtr-loop', ['--state-only']);
    await server.client.connect();
    const { error } = await rejectionOf(server.client.callTool('loop', {}));
    expectHostError(error, 'INPUT_ROUNDS_EXCEEDED');
    const [child] = server.processes as [FixtureProcess];
    await child.waitForRecord('mrtr-round', (r) => r.round === 9);
    const rounds = child.records('mrtr-round');
    expect(rounds).toHaveLength(9);
    expect(rounds.slice(1).every((r: FixtureRecord) => r.stateMatches === true)).toBe(true);
    expect(rounds.every((r: FixtureRecord) => r.idReused === false)).toBe(true);
    // The connection is still usable.
    expect((await server.client.callTool('echo', { message: 'ok' })).isError).not.toBe(true);
  });
});

describe('server input the client never declared', () => {
  const cases = [
    // method, the handlers the client does have (none of them for `method`)
    ['sampling/createMessage', ['roots', 'form']],
    ['roots/list', ['sampling', 'form']],
    ['elicitation/create', ['sampling', 'roots']],
  ] as const;

  it.each(cases)(
    'legacy %s: the client answers -32601 and no handler runs',
    async (method, have) => {
      const { handlers, calls } = countingHandlers([...have]);
      await using server = faultClient('legacy-undeclared-request', [`--method=${method}`], {
        handlers,
      });
      await server.client.connect();
      const result = await server.client.callTool('trigger', {});
      const response = JSON.parse((result.content[0] as { text: string }).text) as {
        error?: { code: number };
      };
      expect(response.error?.code).toBe(-32601);
      const [child] = server.processes as [FixtureProcess];
      const record = await child.waitForRecord('client-response');
      expect(record).toMatchObject({ method, response: { error: { code: -32601 } } });
      expect(child.records('client-response')).toHaveLength(1);
      expect(calls).toEqual([]);
    },
  );

  it('legacy elicitation/create in form mode when only url mode is declared: -32602, no handler runs', async () => {
    const { handlers, calls } = countingHandlers(['url']);
    await using server = faultClient('legacy-undeclared-request', ['--method=elicitation/create'], {
      handlers,
    });
    await server.client.connect();
    await server.client.callTool('trigger', {});
    const record = await server.processes[0]!.waitForRecord('client-response');
    expect(record.response).toMatchObject({ error: { code: -32602 } });
    expect(calls).toEqual([]);
  });

  it('legacy, sent right after notifications/initialized: -32601, no handler runs', async () => {
    const { handlers, calls } = countingHandlers(['roots']);
    await using server = faultClient(
      'legacy-undeclared-request',
      ['--method=sampling/createMessage', '--on-initialized'],
      { handlers },
    );
    await server.client.connect();
    const record = await server.processes[0]!.waitForRecord('client-response');
    expect(record.response).toMatchObject({ error: { code: -32601 } });
    expect(calls).toEqual([]);
  });

  it.each([...cases, ['elicitation/create', ['url']] as const])(
    'modern %s (client has %s): PROTOCOL_VIOLATION, no handler runs, no retry',
    async (method, have) => {
      const { handlers, calls } = countingHandlers([...have]);
      await using server = faultClient('mrtr-undeclared', [`--method=${method}`], { handlers });
      await server.client.connect();
      const { error } = await rejectionOf(server.client.callTool('needs-input', {}));
      expectHostError(error, 'PROTOCOL_VIOLATION');
      expect(error.message).toContain(method);
      expect(calls).toEqual([]);
      // The session goes on; echo is the next request the server sees (a retry would come first).
      expect((await server.client.callTool('echo', { message: 'ok' })).isError).not.toBe(true);
      const [child] = server.processes as [FixtureProcess];
      const echoId = sentWith(child, 'tools/call').at(-1)!.id;
      await child.waitForRecord('received', (r) => r.id === echoId);
      expect(sentWith(child, 'tools/call')).toHaveLength(2);
      expect(child.records('received').filter((r) => r.method === 'tools/call')).toHaveLength(2);
      expect(child.records('mrtr-round')).toHaveLength(1);
    },
  );
});

describe('closing or aborting while a server-input handler runs', () => {
  /** An elicitation handler that waits for the user (for ever), and what happened to it. */
  function waitingForTheUser(honoursSignal: boolean) {
    let invoked!: () => void;
    const state = {
      invoked: new Promise<void>((resolve) => (invoked = resolve)),
      aborted: false,
    };
    const handlers: ServerInputHandlers = {
      elicitation: {
        form: (_params, { signal }) =>
          new Promise((_resolve, reject) => {
            invoked();
            if (!honoursSignal) return;
            signal.addEventListener(
              'abort',
              () => {
                state.aborted = true;
                reject(signal.reason as Error);
              },
              { once: true },
            );
          }),
      },
    };
    return { handlers, state };
  }

  const eras = [
    ['legacy', mcpFixtures.legacySdk],
    ['modern', mcpFixtures.modernSdk],
  ] as const;

  // Both eras: a handler's signal aborts, and the call fails at once, on close or on the caller's
  // abort (modern: the MRTR round is raced against both, whether the handler honours its signal).
  for (const [era, script] of eras) {
    it(`${era}: closing the client aborts the handler and fails the call at once`, async () => {
      const { handlers, state } = waitingForTheUser(true);
      await using server = fixtureClient('sdk', script, [], { handlers });
      await server.client.connect();
      const call = rejectionOf(server.client.callTool('ask', {}));
      await state.invoked;
      const closing = server.client.close();
      const { error } = await within(call, PROMPT_MS, 'settled call after close');
      expectHostError(error, 'CONNECTION_CLOSED');
      expect(state.aborted).toBe(true);
      await closing;
    });

    for (const honoursSignal of [true, false]) {
      it(`${era}: the caller's abort fails the call at once with ABORTED (the handler ${honoursSignal ? 'honours' : 'ignores'} its signal)`, async () => {
        const { handlers, state } = waitingForTheUser(honoursSignal);
        await using server = fixtureClient('sdk', script, [], { handlers });
        await server.client.connect();
        const controller = new AbortController();
        const call = rejectionOf(server.client.callTool('ask', {}, { signal: controller.signal }));
        await state.invoked;
        const reason = new Error('the user went away');
        controller.abort(reason);
        const { error } = await within(call, PROMPT_MS, 'settled call after abort');
        expectHostError(error, 'ABORTED');
        expect(error.cause).toBe(reason);
      });
    }
  }
});

describe('a list_changed flood', () => {
  it('10,000 notifications cost a handful of tools/list requests, few events, no memory growth', async () => {
    await using server = faultClient('list-changed-flood');
    await server.client.connect();
    await server.client.listTools();
    const changes: unknown[] = [];
    const subscription = server.client.onToolsChanged((change) => changes.push(change));
    const [child] = server.processes as [FixtureProcess];
    globalThis.gc?.();
    const before = process.memoryUsage.rss();
    const { peakRss, result } = await peakRssWhile(server.client.callTool('flood', {}));
    expect(result.status).toBe('fulfilled');
    // Every notification was read before the flood's result; the debounced refetch follows.
    await child.waitForRecord('tools/list', (r) => r.afterFloods === 1);
    const growthMiB = (peakRss - before) / MiB;
    console.log(
      `[memory] peak RSS growth during a 10,000 list_changed flood: ${growthMiB.toFixed(1)} MiB`,
    );
    expect(growthMiB).toBeLessThan(64);
    // Close first, so no refetch can still be under way when counting.
    subscription.dispose();
    await server.client.close();
    const refetches = child.records('tools/list').filter((r) => Number(r.afterFloods) >= 1);
    expect(refetches.length).toBeGreaterThanOrEqual(1);
    expect(refetches.length).toBeLessThanOrEqual(3);
    // The list did not change, so there is nothing to report; never one event per notification.
    expect(changes.length).toBeLessThanOrEqual(3);
  });

  it('a flood nobody listens to fetches nothing', async () => {
    await using server = faultClient('list-changed-flood', ['--on-initialized']);
    await server.client.connect();
    const [child] = server.processes as [FixtureProcess];
    await child.waitForRecord('flood-sent');
    // The notifications precede this call's result on the wire.
    const count = await server.client.callTool('count', {});
    expect(count.content).toEqual([{ type: 'text', text: '0' }]);
  });
});

/** A loopback HTTP server that counts the requests it gets (none must come). */
async function countingHttpServer(): Promise<
  { port: number; requests: string[] } & AsyncDisposable
> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"type":"string"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('tool schemas pointing at the network or not valid at all', () => {
  it.each([['legacy'], ['modern']] as const)(
    '%s: the invalid schema excludes only its tool; the network $ref is kept and never fetched',
    async (era) => {
      await using _guard = leakGuard();
      await using http = await countingHttpServer();
      const args = [`--port=${http.port}`, ...(era === 'modern' ? ['--era=modern'] : [])];
      await using server = faultClient('schema-ref', args);
      await server.client.connect();
      expect(server.client.era).toBe(era);
      const { tools: items, excluded } = await server.client.listTools();
      // {"type": 42} is not a JSON Schema: that tool alone is left out, with the reason.
      expect(excluded).toEqual([
        { name: 'bad-schema', reason: expect.stringContaining('not valid JSON Schema') },
      ]);
      // An external $ref is never fetched; it accepts any value, and the schema stays as sent.
      expect(items.map((t) => t.name)).toEqual(['remote-ref', 'echo']);
      expect(items[0]!.inputSchema.properties).toEqual({
        value: { $ref: `http://127.0.0.1:${http.port}/schema.json` },
      });
      expect((await server.client.callTool('echo', { message: 'fine' })).content).toEqual([
        { type: 'text', text: 'fine' },
      ]);
      await server.client.callTool('remote-ref', { value: 'anything' });
      expect(http.requests).toEqual([]);
    },
  );

  it('with schema validation off, only structurally unusable tools would be excluded', async () => {
    await using _guard = leakGuard();
    await using http = await countingHttpServer();
    await using server = faultClient('schema-ref', [`--port=${http.port}`], {
      schemaValidator: false,
    });
    await server.client.connect();
    const { tools: items, excluded } = await server.client.listTools();
    expect(items.map((t) => t.name)).toEqual(['remote-ref', 'bad-schema', 'echo']);
    expect(excluded).toEqual([]);
    expect(http.requests).toEqual([]);
  });
});
