/**
 * The tasks extension (SEP-2663) through the gateway and the host, against a real backend:
 * test/fixtures/mcp/conformance-backend.mjs (the official v2 server, with a task store and the
 * conformance suite's task tools). Over HTTP (`gateway.listen()`, two named clients), raw `fetch`
 * with the 2026-07-28 envelope, as any client of the extension sends it: a task created, polled
 * until it completes, another cancelled, one that asks for input answered, and the other client
 * unable to see, answer or cancel the first client's tasks. And the same through the host's own
 * API (`callTool(..., { task: true })`, `host.tasks`).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isCreateTaskResult, McpClient, McpHost, type DetailedTask } from '../../src/index.js';
import { createGateway } from '../../src/gateway.js';
import { modernPost } from '../helpers/gateway-harness.js';
import { leakGuard } from '../helpers/leak-guard.js';

const backend = fileURLToPath(new URL('../fixtures/mcp/conformance-backend.mjs', import.meta.url));
const TASKS = 'io.modelcontextprotocol/tasks';
const tokens = { alice: 'alice-token-0123456789abcdef', bob: 'bob-token-0123456789abcdefgh' };

function conformanceHost(): McpHost {
  return new McpHost({
    servers: [
      {
        name: 'conformance',
        transport: { type: 'stdio', command: process.execPath, args: [backend] },
      },
    ],
  });
}

interface Answer {
  status: number;
  body: {
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: unknown };
  };
}

/** A host over the conformance backend and a gateway over it, with the clients alice and bob. */
async function tasksGateway() {
  const host = conformanceHost();
  await host.start();
  const gateway = createGateway({ host });
  const listener = await gateway.listen({
    clients: { alice: { bearerToken: tokens.alice }, bob: { bearerToken: tokens.bob } },
  });
  /** One 2026-07-28 request of `who`, declaring the tasks extension unless `tasks` is false. */
  const post = async (
    who: keyof typeof tokens,
    method: string,
    params: Record<string, unknown>,
    tasks = true,
  ): Promise<Answer> => {
    const response = await modernPost(listener.url, method, params, {
      headers: { authorization: `Bearer ${tokens[who]}` },
      clientName: who,
      capabilities: tasks ? { elicitation: {}, extensions: { [TASKS]: {} } } : {},
    });
    return { status: response.status, body: (await response.json()) as Answer['body'] };
  };
  return {
    host,
    post,
    /** `tasks/get` of `who` until the task leaves `status` (the extension's polling). */
    async pollWhile(who: keyof typeof tokens, taskId: string, status: string) {
      for (;;) {
        const { body } = await post(who, 'tasks/get', { taskId });
        if (body.result?.status !== status) return body.result!;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async [Symbol.asyncDispose]() {
      await gateway.close();
      await host.close();
    },
  };
}

const text = (task: Record<string, unknown>): string =>
  ((task.result as { content: Array<{ text: string }> }).content[0] ?? { text: '' }).text;

describe('tasks (SEP-2663) through the gateway', () => {
  it("creates, polls, completes and cancels a client's tasks; another client cannot see, answer or cancel them", async () => {
    await using _guard = leakGuard();
    await using g = await tasksGateway();
    const discovered = await g.post('alice', 'server/discover', {});
    expect(discovered.body.result?.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });

    // Created: a flat CreateTaskResult under the gateway's own id.
    const created = await g.post('alice', 'tools/call', {
      name: 'mcp__conformance__slow_compute',
      arguments: { seconds: 0.3, label: 'quick' },
    });
    const task = created.body.result!;
    expect(task).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = task.taskId as string;
    expect(taskId).toMatch(/^[A-Za-z0-9_-]{32}$/);

    // Another client: the id is unknown to it (as any unknown id), whatever it asks.
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: {} }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      const refused = await g.post('bob', method, params);
      expect(refused.body.error).toMatchObject({
        code: -32602,
        message: `Unknown task: ${taskId}`,
      });
    }

    // Polled until it completes: the tool's result inlined.
    const done = await g.pollWhile('alice', taskId, 'working');
    expect(done).toMatchObject({ taskId, status: 'completed', resultType: 'complete' });
    expect(text(done)).toBe('quick: done after 0.3s');

    // Cancelled while it runs: an empty ack, then `cancelled`.
    const long = await g.post('alice', 'tools/call', {
      name: 'mcp__conformance__slow_compute',
      arguments: { seconds: 60 },
    });
    const longId = long.body.result!.taskId as string;
    const ack = await g.post('alice', 'tasks/cancel', { taskId: longId });
    expect(ack.body.result).toEqual({
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'mcp-host', version: '0.1.0' } },
    });
    expect((await g.post('alice', 'tasks/get', { taskId: longId })).body.result).toMatchObject({
      status: 'cancelled',
    });

    // Bob's own task is his: Alice cannot read it either.
    const bobs = await g.post('bob', 'tools/call', {
      name: 'mcp__conformance__slow_compute',
      arguments: { seconds: 60 },
    });
    const bobsId = bobs.body.result!.taskId as string;
    expect((await g.post('alice', 'tasks/get', { taskId: bobsId })).body.error?.code).toBe(-32602);
    expect((await g.post('bob', 'tasks/cancel', { taskId: bobsId })).body.result).toBeDefined();
  });

  it('a task that asks for input is answered with tasks/update; without the extension a call runs at once and tasks/* are -32021', async () => {
    await using _guard = leakGuard();
    await using g = await tasksGateway();
    const created = await g.post('alice', 'tools/call', {
      name: 'mcp__conformance__confirm_delete',
      arguments: { filename: 'a.txt' },
    });
    const taskId = created.body.result!.taskId as string;
    const asking = await g.pollWhile('alice', taskId, 'working');
    expect(asking.status).toBe('input_required');
    const [key] = Object.keys(asking.inputRequests as object);
    expect((asking.inputRequests as Record<string, { method: string }>)[key!]!.method).toBe(
      'elicitation/create',
    );
    await g.post('alice', 'tasks/update', {
      taskId,
      inputResponses: { [key!]: { action: 'accept', content: { confirm: true } } },
    });
    const done = await g.pollWhile('alice', taskId, 'input_required');
    const finished =
      done.status === 'working' ? await g.pollWhile('alice', taskId, 'working') : done;
    expect(text(finished)).toBe('Deleted a.txt');

    // No extension declared: the same tool runs synchronously, and the task methods are refused.
    const now = await g.post(
      'alice',
      'tools/call',
      { name: 'mcp__conformance__slow_compute', arguments: { seconds: 0, label: 'now' } },
      false,
    );
    expect(now.body.result).toMatchObject({ resultType: 'complete' });
    expect(now.body.result?.taskId).toBeUndefined();
    const gated = await g.post('alice', 'tasks/get', { taskId }, false);
    expect(gated.status).toBe(400);
    expect(gated.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
  });
});

describe('tasks (SEP-2663) through the host', () => {
  it('callTool(..., { task: true }) answers a task handle; host.tasks reads, cancels it and names an unknown id', async () => {
    await using _guard = leakGuard();
    await using host = conformanceHost();
    await host.start();
    // Without `task`, the same tool answers its result: nothing else changes.
    const plain = await host.callTool('mcp__conformance__slow_compute', { seconds: 0 });
    expect(plain.content[0]).toMatchObject({ text: 'slow_compute: done after 0s' });

    const answer = await host.callTool(
      'mcp__conformance__slow_compute',
      { seconds: 0.2, label: 'host' },
      { task: true },
    );
    if (!isCreateTaskResult(answer)) throw new Error('expected a task');
    let task: DetailedTask = await host.tasks.get(answer.taskId);
    while (task.status === 'working') {
      // The extension's polling, at the pace the server asks for.
      await new Promise((resolve) => setTimeout(resolve, task.pollIntervalMs ?? 50));
      task = await host.tasks.get(answer.taskId);
    }
    expect(task.status).toBe('completed');
    expect(task.result?.content[0]).toMatchObject({ text: 'host: done after 0.2s' });

    const long = await host.callTool(
      'mcp__conformance__slow_compute',
      { seconds: 60 },
      { task: true },
    );
    if (!isCreateTaskResult(long)) throw new Error('expected a task');
    await host.tasks.cancel(long.taskId);
    expect((await host.tasks.get(long.taskId)).status).toBe('cancelled');

    await expect(host.tasks.get('no-such-task')).rejects.toMatchObject({
      code: 'TASK_NOT_FOUND',
      details: { taskId: 'no-such-task' },
    });
    // A required-task tool called without accepting one: the server's -32021, naming the extension.
    await expect(host.callTool('mcp__conformance__failing_job', {})).rejects.toMatchObject({
      code: -32021,
    });
  });
});

describe('tasks (SEP-2663) of one client', () => {
  it('names an id the server does not know (TASK_NOT_FOUND); a legacy session offers no tasks and sends nothing', async () => {
    await using _guard = leakGuard();
    const transport = { type: 'stdio', command: process.execPath, args: [backend] } as const;
    await using modern = new McpClient({ transport, serverName: 'conformance' });
    await modern.connect();
    expect(modern.tasks.supported).toBe(true);
    await expect(modern.tasks.get('no-such-task')).rejects.toMatchObject({
      code: 'TASK_NOT_FOUND',
      serverName: 'conformance',
      details: { taskId: 'no-such-task' },
    });

    await using legacy = new McpClient({ transport, serverName: 'conformance', era: 'legacy' });
    await legacy.connect();
    expect(legacy.tasks.supported).toBe(false);
    await expect(legacy.tasks.cancel('any')).rejects.toMatchObject({
      code: 'CAPABILITY_NOT_SUPPORTED',
    });
    // Accepting a task changes nothing where none can be made: the result, at once.
    const result = await legacy.callTool('slow_compute', { seconds: 0 }, { task: true });
    expect(isCreateTaskResult(result)).toBe(false);
  });
});
