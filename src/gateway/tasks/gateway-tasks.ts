import { randomBytes } from 'node:crypto';
import { JsonRpcError, JsonRpcErrorCode } from '../../errors/json-rpc-error.js';
import { toMcpHostError } from '../../errors/to-mcp-host-error.js';
import type { JsonObject } from '../../jsonrpc/message.js';
import { isObject } from '../../protocol/guards.js';
import { McpErrorCode, TASKS_EXTENSION } from '../../protocol/methods.js';
import type { ClientCapabilities, CreateTaskResult, DetailedTask } from '../../protocol/types.js';

/** How a task's methods reach the backend that owns it (through the host that made the call). */
export interface TaskBackend {
  getTask(taskId: string, options: { signal?: AbortSignal }): Promise<DetailedTask>;
  updateTask(
    taskId: string,
    inputResponses: Record<string, unknown>,
    options: { signal?: AbortSignal },
  ): Promise<void>;
  cancelTask(taskId: string, options: { signal?: AbortSignal }): Promise<void>;
}

/** Tasks the gateway keeps routes for at most (the oldest route is forgotten first). */
export const MAX_GATEWAY_TASKS = 10_000;

interface TaskRoute {
  /** The gateway client the task belongs to (its principal; '' for an unnamed one). */
  owner: string;
  backend: TaskBackend;
  /** The backend's own id of the task. */
  taskId: string;
  expiresAt: number;
}

/**
 * The tasks (the tasks extension, SEP-2663) the gateway's clients created through it: each under
 * an id of the gateway's own (24 random bytes), routed to the backend's task and bound to the
 * client that created it. A client that names another's task, or one the gateway never made or
 * has forgotten (after its `ttlMs`, or beyond MAX_GATEWAY_TASKS), is told the id is unknown
 * (-32602), exactly as for an id that never existed: nothing says the task exists.
 */
export class GatewayTasks {
  readonly #routes = new Map<string, TaskRoute>();
  readonly #maxTasks: number;

  constructor(maxTasks: number = MAX_GATEWAY_TASKS) {
    this.#maxTasks = maxTasks;
  }

  /** Routes kept now. */
  get size(): number {
    return this.#routes.size;
  }

  /**
   * A backend's `CreateTaskResult`, as the client gets it: under a new id of the gateway's, which
   * routes to the backend's task for `owner` only.
   */
  created(owner: string, backend: TaskBackend, task: CreateTaskResult): CreateTaskResult {
    const id = randomBytes(24).toString('base64url');
    const ttlMs = typeof task.ttlMs === 'number' && task.ttlMs > 0 ? task.ttlMs : Infinity;
    this.#routes.set(id, {
      owner,
      backend,
      taskId: task.taskId,
      expiresAt: performance.now() + ttlMs,
    });
    if (this.#routes.size > this.#maxTasks) {
      const oldest = this.#routes.keys().next().value;
      if (oldest !== undefined) this.#routes.delete(oldest);
    }
    return { ...withoutBackendMeta(task), resultType: 'task', taskId: id };
  }

  /** `tasks/get`: the backend's task under the gateway's id. */
  async get(owner: string, params: JsonObject, signal: AbortSignal): Promise<JsonObject> {
    const [id, route] = this.#route(owner, params);
    try {
      const task = await route.backend.getTask(route.taskId, { signal });
      return { ...withoutBackendMeta(task), taskId: id };
    } catch (error) {
      throw this.#failure(error, id);
    }
  }

  /** `tasks/update`: the answers passed on (the backend's keys are the client's); an empty ack. */
  async update(owner: string, params: JsonObject, signal: AbortSignal): Promise<JsonObject> {
    const [id, route] = this.#route(owner, params);
    const responses = params.inputResponses;
    if (!isObject(responses))
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        "'tasks/update' needs inputResponses (an object)",
      );
    try {
      await route.backend.updateTask(route.taskId, responses, { signal });
    } catch (error) {
      throw this.#failure(error, id);
    }
    return {};
  }

  /** `tasks/cancel`: passed on; an empty ack. */
  async cancel(owner: string, params: JsonObject, signal: AbortSignal): Promise<JsonObject> {
    const [id, route] = this.#route(owner, params);
    try {
      await route.backend.cancelTask(route.taskId, { signal });
    } catch (error) {
      throw this.#failure(error, id);
    }
    return {};
  }

  /** Forgets every route (the gateway closed). */
  clear(): void {
    this.#routes.clear();
  }

  #route(owner: string, params: JsonObject): [string, TaskRoute] {
    const id = params.taskId;
    if (typeof id !== 'string')
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        'the request needs a taskId (a string)',
      );
    const route = this.#routes.get(id);
    if (route !== undefined && route.expiresAt <= performance.now()) this.#routes.delete(id);
    if (route === undefined || route.owner !== owner || !this.#routes.has(id))
      throw unknownTask(id);
    return [id, route];
  }

  /** A backend's failure: an id it no longer knows is unknown here too; else its error. */
  #failure(error: unknown, id: string): JsonRpcError {
    const local = toMcpHostError(error);
    if (local instanceof JsonRpcError)
      return new JsonRpcError(local.code, local.message, { data: local.data });
    if (local.code === 'TASK_NOT_FOUND') return unknownTask(id);
    return new JsonRpcError(JsonRpcErrorCode.InternalError, `${local.code}: ${local.message}`);
  }
}

/** Whether a modern request's client capabilities declare the tasks extension. */
export function declaresTasks(capabilities: ClientCapabilities): boolean {
  return isObject(capabilities.extensions?.[TASKS_EXTENSION]);
}

/** -32021 for a `tasks/*` request whose client did not declare the extension. */
export function tasksNotDeclared(method: string): JsonRpcError {
  return new JsonRpcError(
    McpErrorCode.MissingRequiredClientCapability,
    `'${method}' needs the ${TASKS_EXTENSION} extension in the request's client capabilities`,
    { data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } },
  );
}

function unknownTask(id: string): JsonRpcError {
  return new JsonRpcError(JsonRpcErrorCode.InvalidParams, `Unknown task: ${id.slice(0, 128)}`);
}

/** A backend's answer without its own `resultType` and `_meta` (the gateway's go on instead). */
function withoutBackendMeta<T extends JsonObject>(task: T): T {
  const { resultType: _resultType, _meta: _backendMeta, ...rest } = task;
  return rest as T;
}
