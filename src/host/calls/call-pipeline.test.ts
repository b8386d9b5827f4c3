import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import type { McpHostError } from '../../errors/mcp-host-error.js';
import type { FakeTool } from '../../testing/index.js';
import { echo, fake, host, stateOf } from '../host-test-helpers.js';
import type { McpHost } from '../mcp-host.js';
import type { AuditRecord } from '../observe/audit.js';
import type { ToolCall, ToolCallEvent, ToolCallInterceptor } from './call-pipeline.js';

/** What a host recorded about its calls: events, audit records, and the metrics' count per tool. */
function recorder(h: McpHost, audit: AuditRecord[]) {
  const events: ToolCallEvent[] = [];
  h.onToolCall((event) => events.push(event));
  return {
    events,
    /** Per tool: [started, ended] events, audit records, calls counted by the metrics. */
    counts(tool: string): { started: number; ended: number; audited: number; counted: number } {
      const of = events.filter((event) => event.tool === tool);
      return {
        started: of.filter((event) => event.phase === 'started').length,
        ended: of.filter((event) => event.phase !== 'started').length,
        audited: audit.filter((record) => record.tool === tool).length,
        counted: h.metrics().tools[tool]?.calls ?? 0,
      };
    },
  };
}

const once = { started: 1, ended: 1, audited: 1, counted: 1 };

describe('the call pipeline', () => {
  it('runs user interceptors in order, once per call, after access and before argument checks', async () => {
    await using _guard = leakGuard();
    const seen: string[] = [];
    const tag =
      (label: string): ToolCallInterceptor =>
      (next) =>
      (call) => {
        seen.push(`${label}:${call.tool.name}`);
        return next(call);
      };
    // Rewrites the arguments of `echo`: the server sees the rewritten ones, checked first.
    const rewrite: ToolCallInterceptor = (next) => (call: ToolCall) =>
      next(call.tool.originalName === 'echo' ? { ...call, args: { text: 'rewritten' } } : call);
    const strict: FakeTool = {
      ...echo('strict'),
      inputSchema: {
        type: 'object',
        properties: { n: { type: 'number' } },
        required: ['n'],
      },
    };
    const a = fake('alpha', { tools: [echo(), echo('hidden'), strict] });
    await using h = await host({
      servers: [a.definition],
      interceptors: [tag('first'), tag('second'), rewrite],
      filter: (tool) => tool.originalName !== 'hidden',
    });

    expect((await h.callTool('mcp__alpha__echo', { text: 'original' })).content).toEqual([
      { type: 'text', text: 'echo:rewritten' },
    ]);
    const refused = (await h
      .callTool('mcp__alpha__hidden')
      .catch((e: unknown) => e)) as McpHostError;
    expect(refused.code).toBe('TOOL_DENIED');
    // An interceptor's rewrite is still validated: the arguments reach the check, not the server.
    const invalid = await h.callTool({ name: 'mcp__alpha__strict', arguments: { n: 'x' } });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid.content)).toContain('Invalid arguments');

    expect(seen).toEqual([
      'first:mcp__alpha__echo',
      'second:mcp__alpha__echo',
      'first:mcp__alpha__strict',
      'second:mcp__alpha__strict',
    ]);
    const sent = a.servers[0]!.received.filter((r) => r.method === 'tools/call');
    expect(sent.map((r) => r.params)).toEqual([{ name: 'echo', arguments: { text: 'rewritten' } }]);
  });

  it('an interceptor may answer a call itself or refuse it (even by throwing), observed like any call', async () => {
    await using _guard = leakGuard();
    const audit: AuditRecord[] = [];
    const a = fake('alpha');
    const cached: ToolCallInterceptor = (next) => (call) => {
      if (call.args.refuse === true) throw new Error('not on a Sunday'); // thrown, not rejected
      return call.args.cached === true
        ? Promise.resolve({ content: [{ type: 'text', text: 'from the cache' }] })
        : next(call);
    };
    await using h = await host({
      servers: [a.definition],
      interceptors: [cached],
      audit: (r) => audit.push(r),
    });
    const log = recorder(h, audit);
    expect((await h.callTool('mcp__alpha__echo', { cached: true })).content).toEqual([
      { type: 'text', text: 'from the cache' },
    ]);
    const refused = (await h
      .callTool('mcp__alpha__echo', { refuse: true })
      .catch((e: unknown) => e)) as McpHostError;
    expect(refused).toMatchObject({
      code: 'INTERNAL',
      serverName: 'alpha',
      tool: 'mcp__alpha__echo',
    });
    expect(refused.message).toBe("server 'alpha': not on a Sunday");
    expect(a.servers[0]!.received.filter((r) => r.method === 'tools/call')).toEqual([]);
    expect(log.counts('mcp__alpha__echo')).toEqual({
      started: 2,
      ended: 2,
      audited: 2,
      counted: 2,
    });
  });

  it('records the event, the audit record and the metrics once per call on every path', async () => {
    await using _guard = leakGuard();
    const audit: AuditRecord[] = [];
    let dyingCalls = 0;
    const dying: FakeTool = {
      ...echo('dying'),
      handler: () => {
        dyingCalls++;
        // Dies mid-call on the first two calls: lost once, then lost and resent once.
        if (dyingCalls <= 2) void a.servers.at(-1)!.close();
        return { content: [{ type: 'text', text: `answered on attempt ${dyingCalls}` }] };
      },
    };
    const failing: FakeTool = {
      ...echo('failing'),
      handler: () => ({ isError: true, content: [{ type: 'text', text: 'it went wrong' }] }),
    };
    const a = fake('alpha', { tools: [echo(), failing, dying, echo('hidden'), echo('vetoed')] });
    await using h = await host({
      servers: [a.definition],
      restart: { baseDelayMs: 20, maxDelayMs: 20 },
      audit: (record) => audit.push(record),
      filter: (tool) => tool.originalName !== 'hidden',
      approve: ({ tool }) => tool.originalName !== 'vetoed',
    });
    const log = recorder(h, audit);
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => (error as McpHostError).code,
      );

    // Success, and a tool error (a result, not a throw).
    await h.callTool('mcp__alpha__echo', { text: 'x' });
    expect((await h.callTool('mcp__alpha__failing')).isError).toBe(true);
    // Refusals: hidden by the filter, vetoed by the approval hook.
    expect(await failure(h.callTool('mcp__alpha__hidden'))).toBe('TOOL_DENIED');
    expect(await failure(h.callTool('mcp__alpha__vetoed'))).toBe('TOOL_DENIED');
    // A transport failure: the server dies mid-call (not resent without an opt-in).
    expect(await failure(h.callTool('mcp__alpha__dying'))).toBe('CONNECTION_CLOSED');
    await stateOf(h, 'alpha', 'ready');
    // A resend: lost again, sent once more after the restart, answered: still one call.
    const resent = await h.callTool('mcp__alpha__dying', {}, { retry: true });
    expect(resent.content).toEqual([{ type: 'text', text: 'answered on attempt 3' }]);

    expect(log.counts('mcp__alpha__echo')).toEqual(once);
    expect(log.counts('mcp__alpha__failing')).toEqual(once);
    expect(log.counts('mcp__alpha__hidden')).toEqual(once);
    expect(log.counts('mcp__alpha__vetoed')).toEqual(once);
    expect(log.counts('mcp__alpha__dying')).toEqual({
      ...once,
      started: 2,
      ended: 2,
      audited: 2,
      counted: 2,
    });
    expect(
      log.events
        .filter((event) => event.phase !== 'started')
        .map((event) => [event.tool, event.outcome]),
    ).toEqual([
      ['mcp__alpha__echo', 'ok'],
      ['mcp__alpha__failing', 'tool_error'],
      ['mcp__alpha__hidden', 'TOOL_DENIED'],
      ['mcp__alpha__vetoed', 'TOOL_DENIED'],
      ['mcp__alpha__dying', 'CONNECTION_CLOSED'],
      ['mcp__alpha__dying', 'ok'],
    ]);
    expect(audit.map((record) => record.outcome)).toEqual([
      'ok',
      'tool_error',
      'error',
      'error',
      'error',
      'ok',
    ]);
  });

  it('refuses a quarantined tool in the pin check, once, before any interceptor of the user', async () => {
    await using _guard = leakGuard();
    const audit: AuditRecord[] = [];
    const tools = [echo()];
    const a = fake('alpha', { tools });
    const seen: string[] = [];
    await using h = await host({
      servers: [a.definition],
      audit: (record) => audit.push(record),
      interceptors: [(next) => (call) => (seen.push(call.tool.name), next(call))],
    });
    const log = recorder(h, audit);
    const hidden = new Promise<void>((resolve) =>
      h.onToolsChanged((change) => change.removed.includes('mcp__alpha__echo') && resolve()),
    );
    tools[0] = { ...echo(), description: 'changed behind your back' };
    a.servers[0]!.peer.notify('notifications/tools/list_changed');
    await hidden;
    const error = (await h.callTool('mcp__alpha__echo').catch((e: unknown) => e)) as McpHostError;
    expect(error.code).toBe('TOOL_QUARANTINED');
    expect(seen).toEqual([]);
    expect(log.counts('mcp__alpha__echo')).toEqual(once);
  });

  it('compiles an inputSchema on the first call; one the listing let through that does not compile refuses the call, unsent', async () => {
    await using _guard = leakGuard();
    // `[` is not a regex, in a place the listing's check does not look (docs/architecture.md, "Tool schemas").
    const odd: FakeTool = {
      ...echo('odd'),
      inputSchema: { type: 'object', patternProperties: { '[': {} } },
    };
    const strict: FakeTool = {
      ...echo('strict'),
      inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    };
    const a = fake('alpha', { tools: [odd, strict] });
    await using h = await host({ servers: [a.definition] });
    expect(h.tools().map((tool) => tool.name)).toEqual(['mcp__alpha__odd', 'mcp__alpha__strict']);
    const refused = (await h.callTool('mcp__alpha__odd').catch((e: unknown) => e)) as McpHostError;
    expect(refused).toMatchObject({
      code: 'INVALID_ARGUMENT',
      serverName: 'alpha',
      tool: 'odd',
      message: expect.stringMatching(
        /^server 'alpha': tool 'odd' is excluded: its inputSchema is unusable \(schema cannot be compiled: pattern "\[" /,
      ) as unknown,
    });
    const invalid = await h.callTool({ name: 'mcp__alpha__strict', arguments: { n: 'x' } });
    expect(JSON.stringify(invalid.content)).toContain('Invalid arguments');
    expect(a.servers[0]!.received.filter((r) => r.method === 'tools/call')).toEqual([]);
  });
});
