import { describe, expect, it } from 'vitest';
import { JsonRpcError } from '../../errors/json-rpc-error.js';
import { McpHostError } from '../../errors/mcp-host-error.js';
import type { CreateTaskResult, DetailedTask } from '../../protocol/types.js';
import {
  declaresTasks,
  GatewayTasks,
  tasksNotDeclared,
  type TaskBackend,
} from './gateway-tasks.js';

const signal = new AbortController().signal;

function task(taskId: string, extra: Partial<CreateTaskResult> = {}): CreateTaskResult {
  return {
    resultType: 'task',
    taskId,
    status: 'working',
    createdAt: '2026-07-28T00:00:00Z',
    lastUpdatedAt: '2026-07-28T00:00:00Z',
    ttlMs: 60_000,
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'backend', version: '1' } },
    ...extra,
  };
}

/** A backend that records what reached it and knows the tasks in `known`. */
function backend(known: string[] = ['b-1']) {
  const seen: Array<{ method: string; taskId: string; inputResponses?: unknown }> = [];
  const check = (taskId: string) => {
    if (!known.includes(taskId))
      throw new McpHostError('TASK_NOT_FOUND', `the server does not know the task '${taskId}'`);
  };
  const port: TaskBackend = {
    getTask: (taskId) => {
      seen.push({ method: 'tasks/get', taskId });
      check(taskId);
      const detailed: DetailedTask = {
        ...task(taskId, { status: 'completed' }),
        resultType: 'complete',
        result: { content: [{ type: 'text', text: 'done' }] },
      };
      return Promise.resolve(detailed);
    },
    updateTask: (taskId, inputResponses) => {
      seen.push({ method: 'tasks/update', taskId, inputResponses });
      check(taskId);
      return Promise.resolve();
    },
    cancelTask: (taskId) => {
      seen.push({ method: 'tasks/cancel', taskId });
      check(taskId);
      return Promise.resolve();
    },
  };
  return { port, seen };
}

describe('GatewayTasks', () => {
  it("gives a task an id of the gateway's own and routes each method to the backend's task", async () => {
    const tasks = new GatewayTasks();
    const { port, seen } = backend();
    const created = tasks.created('alice', port, task('b-1'));
    expect(created.taskId).not.toBe('b-1');
    expect(created.taskId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // The backend's own resultType and _meta (its serverInfo) are not passed on as they were.
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 60_000 });
    expect(created._meta).toBeUndefined();

    const got = await tasks.get('alice', { taskId: created.taskId }, signal);
    expect(got).toMatchObject({ taskId: created.taskId, status: 'completed' });
    expect(got.resultType).toBeUndefined();
    expect(
      await tasks.update('alice', { taskId: created.taskId, inputResponses: { a: 1 } }, signal),
    ).toEqual({});
    expect(await tasks.cancel('alice', { taskId: created.taskId }, signal)).toEqual({});
    expect(seen).toEqual([
      { method: 'tasks/get', taskId: 'b-1' },
      { method: 'tasks/update', taskId: 'b-1', inputResponses: { a: 1 } },
      { method: 'tasks/cancel', taskId: 'b-1' },
    ]);
  });

  it("never routes one client's task for another: the id is unknown to it (-32602), and nothing reaches the backend", async () => {
    const tasks = new GatewayTasks();
    const { port, seen } = backend();
    const { taskId } = tasks.created('alice', port, task('b-1'));
    for (const owner of ['bob', '']) {
      await expect(tasks.get(owner, { taskId }, signal)).rejects.toMatchObject({ code: -32602 });
      await expect(tasks.cancel(owner, { taskId }, signal)).rejects.toMatchObject({ code: -32602 });
      await expect(
        tasks.update(owner, { taskId, inputResponses: {} }, signal),
      ).rejects.toMatchObject({ code: -32602 });
    }
    // The backend's own id is no key either.
    await expect(tasks.get('alice', { taskId: 'b-1' }, signal)).rejects.toMatchObject({
      code: -32602,
      message: 'Unknown task: b-1',
    });
    expect(seen).toEqual([]);
  });

  it('an id the backend no longer knows is unknown here too; a malformed request is -32602', async () => {
    const tasks = new GatewayTasks();
    const { port } = backend([]);
    const { taskId } = tasks.created('alice', port, task('gone'));
    await expect(tasks.get('alice', { taskId }, signal)).rejects.toMatchObject({
      code: -32602,
      message: `Unknown task: ${taskId}`,
    });
    await expect(tasks.get('alice', {}, signal)).rejects.toBeInstanceOf(JsonRpcError);
    await expect(
      tasks.update('alice', { taskId, inputResponses: 'yes' }, signal),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('keeps at most maxTasks routes, forgetting the oldest first', async () => {
    const tasks = new GatewayTasks(2);
    const { port } = backend(['b-1', 'b-2', 'b-3']);
    const first = tasks.created('alice', port, task('b-1'));
    const second = tasks.created('alice', port, task('b-2'));
    const third = tasks.created('alice', port, task('b-3'));
    expect(tasks.size).toBe(2);
    await expect(tasks.get('alice', { taskId: first.taskId }, signal)).rejects.toMatchObject({
      code: -32602,
    });
    await expect(tasks.get('alice', { taskId: second.taskId }, signal)).resolves.toBeDefined();
    await expect(tasks.get('alice', { taskId: third.taskId }, signal)).resolves.toBeDefined();
  });

  it('names the extension a client must declare (-32021 with data.requiredCapabilities)', () => {
    expect(declaresTasks({ extensions: { 'io.modelcontextprotocol/tasks': {} } })).toBe(true);
    expect(declaresTasks({})).toBe(false);
    const refusal = tasksNotDeclared('tasks/get');
    expect(refusal.code).toBe(-32021);
    expect(refusal.data).toEqual({
      requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    });
  });
});
