import { McpHostError } from '../errors/mcp-host-error.js';
import type { CreateTaskResult, DetailedTask } from '../protocol/types.js';
import type { McpClient } from '../client/mcp-client.js';
import { isCreateTaskResult } from '../protocol/guards.js';
import type { ToolCallAnswer } from './calls/call-pipeline.js';
import { applyResultBudget, DEFAULT_MAX_RESULT_BYTES } from './calls/result-budget.js';
import { registeredServer, type ServerSlot } from './slot/server-slot.js';

/** Options of `host.getTask`, `updateTask` and `cancelTask`. */
export interface HostTaskOptions {
  signal?: AbortSignal;
  /** Idle timeout of the request (default: the client's request timeout). */
  timeoutMs?: number;
}

/** Tasks the host remembers at most (the oldest is forgotten first). */
const MAX_TASKS = 10_000;

/**
 * The tasks (the tasks extension, SEP-2663) the host's calls created, as `host.tasks`: a
 * `host.callTool(name, args, { task: true })` whose server declared the extension may answer with
 * a `CreateTaskResult` (`isCreateTaskResult`) instead of the result; the host remembers which
 * server owns its `taskId`, and `get`, `update` and `cancel` go there. A task the host did not
 * create, or has forgotten (after its `ttlMs`, as its server does, or beyond the 10,000 most
 * recent), is `TASK_NOT_FOUND`, naming it; so is one its server no longer knows. A server that is
 * down is `SERVER_UNAVAILABLE`.
 */
export class HostTasks {
  readonly #servers: ReadonlyMap<string, ServerSlot>;
  readonly #maxResultBytes: number;
  readonly #owners = new Map<string, { server: string; expiresAt: number }>();

  /** @internal Made by `McpHost`. */
  constructor(
    servers: ReadonlyMap<string, ServerSlot>,
    options: { maxResultBytes?: number | undefined },
  ) {
    this.#servers = servers;
    this.#maxResultBytes = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  }

  /**
   * @internal The answer of a call that accepted a task: a task it is remembered as the server's
   * (a native tool, `server` undefined, makes none).
   */
  track(server: string | undefined, answer: Promise<ToolCallAnswer>): Promise<ToolCallAnswer> {
    return answer.then((result) => {
      if (server !== undefined && isCreateTaskResult(result)) this.#remember(server, result);
      return result;
    });
  }

  #remember(server: string, task: CreateTaskResult): void {
    const ttlMs = typeof task.ttlMs === 'number' && task.ttlMs > 0 ? task.ttlMs : Infinity;
    this.#owners.delete(task.taskId);
    this.#owners.set(task.taskId, { server, expiresAt: performance.now() + ttlMs });
    if (this.#owners.size > MAX_TASKS) {
      const oldest = this.#owners.keys().next().value;
      if (oldest !== undefined) this.#owners.delete(oldest);
    }
  }

  /**
   * The task as its server has it now (`tasks/get`): its `status`, and once it is over the tool's
   * `result` (`completed`, within the host's `maxResultBytes`) or the `error` (`failed`); while
   * `input_required`, the `inputRequests` to answer with `update`.
   */
  async get(taskId: string, options: HostTaskOptions = {}): Promise<DetailedTask> {
    const task = await (await this.#client(taskId)).tasks.get(taskId, options);
    if (task.result === undefined || this.#maxResultBytes <= 0) return task;
    return {
      ...task,
      result: applyResultBudget(task.result, { maxBytes: this.#maxResultBytes }).result,
    };
  }

  /** Answers what the task asks (its `inputRequests`, by key): `tasks/update` to its server. */
  async update(
    taskId: string,
    inputResponses: Record<string, unknown>,
    options: HostTaskOptions = {},
  ): Promise<void> {
    await (await this.#client(taskId)).tasks.update(taskId, inputResponses, options);
  }

  /** Asks the task's server to cancel it (`tasks/cancel`; a finished task stays as it is). */
  async cancel(taskId: string, options: HostTaskOptions = {}): Promise<void> {
    await (await this.#client(taskId)).tasks.cancel(taskId, options);
  }

  /** The connected client of the task's server; `TASK_NOT_FOUND` for a task the host does not know. */
  #client(taskId: string): Promise<McpClient> {
    const owner = this.#owners.get(taskId);
    if (owner !== undefined && owner.expiresAt <= performance.now()) this.#owners.delete(taskId);
    if (owner === undefined || !this.#owners.has(taskId) || !this.#servers.has(owner.server))
      return Promise.reject(
        new McpHostError(
          'TASK_NOT_FOUND',
          `no call of this host created the task '${taskId}' (or it expired)`,
          { details: { taskId } },
        ),
      );
    return registeredServer(this.#servers, owner.server).ready();
  }
}
