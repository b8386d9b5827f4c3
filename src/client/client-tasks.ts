import { JsonRpcError, JsonRpcErrorCode } from '../errors/json-rpc-error.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { isObject } from '../protocol/guards.js';
import { McpMethod, TASKS_EXTENSION } from '../protocol/methods.js';
import type { DetailedTask } from '../protocol/types.js';
import type { CallOptions } from './client-options.js';
import type { Session } from './open-session.js';

/** What a request declares to accept a task (the tasks extension, in its `_meta`). */
export const TASK_EXTENSIONS: Readonly<Record<string, JsonObject>> = Object.freeze({
  [TASKS_EXTENSION]: {},
});

function offersTasks(session: Readonly<Session> | undefined): boolean {
  return session?.era === 'modern' && isObject(session.capabilities.extensions?.[TASKS_EXTENSION]);
}

/** What `TaskRequests` needs of its session. */
export interface ClientTasksPort {
  readonly serverName: string | undefined;
  session(): Readonly<Session> | undefined;
  /** One request of the client, declaring `extensions` in its `_meta` client capabilities. */
  request<T>(
    method: string,
    params: JsonObject,
    options: CallOptions,
    extensions: Record<string, JsonObject>,
  ): Promise<T>;
}

/**
 * The tasks requests of one session (the tasks extension, SEP-2663): what `McpClient.tasks` does,
 * on the session side. Each request declares the extension; a server that did not declare it is
 * sent nothing (`CAPABILITY_NOT_SUPPORTED`), and an id the server does not know is
 * `TASK_NOT_FOUND`, naming it.
 */
export class TaskRequests {
  readonly #client: ClientTasksPort;

  constructor(client: ClientTasksPort) {
    this.#client = client;
  }

  /** Whether the session speaks the modern era and the server declared the extension. */
  get supported(): boolean {
    return offersTasks(this.#client.session());
  }

  /** `tasks/get`, its result checked. */
  async get(taskId: string, options: CallOptions = {}): Promise<DetailedTask> {
    const task = await this.#request<unknown>(McpMethod.TasksGet, taskId, {}, options);
    if (!isObject(task) || task.taskId !== taskId || typeof task.status !== 'string')
      throw new McpHostError('PROTOCOL_VIOLATION', `malformed tasks/get result for '${taskId}'`, {
        serverName: this.#client.serverName,
        method: McpMethod.TasksGet,
        details: { taskId },
      });
    return task as DetailedTask;
  }

  /** `tasks/update`. */
  async update(
    taskId: string,
    inputResponses: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<void> {
    await this.#request(McpMethod.TasksUpdate, taskId, { inputResponses }, options);
  }

  /** `tasks/cancel`. */
  async cancel(taskId: string, options: CallOptions = {}): Promise<void> {
    await this.#request(McpMethod.TasksCancel, taskId, {}, options);
  }

  async #request<T>(
    method: string,
    taskId: string,
    params: JsonObject,
    options: CallOptions,
  ): Promise<T> {
    const { serverName } = this.#client;
    if (!this.supported)
      throw new McpHostError(
        'CAPABILITY_NOT_SUPPORTED',
        `the server does not support the tasks extension (${TASKS_EXTENSION})`,
        { serverName, method },
      );
    try {
      return await this.#client.request<T>(method, { ...params, taskId }, options, TASK_EXTENSIONS);
    } catch (error) {
      // The extension's -32602 of a task method: an id the server does not know (or forgot).
      if (error instanceof JsonRpcError && error.code === JsonRpcErrorCode.InvalidParams)
        throw new McpHostError('TASK_NOT_FOUND', `the server does not know the task '${taskId}'`, {
          serverName,
          method,
          details: { taskId },
          cause: error,
        });
      throw error;
    }
  }
}
