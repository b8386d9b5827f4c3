import { toDisposable, type Disposable } from '../internal/disposable.js';
import { JsonRpcErrorCode } from '../errors/json-rpc-error.js';
import type { JsonRpcErrorObject, RequestId } from './message.js';
import type { RequestHandler } from './peer-options.js';
import { toWireError } from './peer-errors.js';

/** Sends the answer to an incoming request: a result, or an error object. */
export type Reply = (id: RequestId, result: unknown, error: JsonRpcErrorObject | undefined) => void;

/**
 * The other side's requests: handlers by method (`*` for the rest), the ones in flight with their
 * abort controllers, and a bound on how many run at once. A handler's result or thrown error
 * becomes the response; a cancelled request gets none.
 */
export class InboundRequests {
  readonly #handlers = new Map<string, RequestHandler>();
  readonly #inFlight = new Map<RequestId, AbortController>();
  readonly #maxInFlight: number;
  readonly #reply: Reply;

  constructor(maxInFlight: number, reply: Reply) {
    this.#maxInFlight = maxInFlight;
    this.#reply = reply;
  }

  get size(): number {
    return this.#inFlight.size;
  }

  setHandler(method: string, handler: RequestHandler): Disposable {
    this.#handlers.set(method, handler);
    return toDisposable(() => {
      if (this.#handlers.get(method) === handler) this.#handlers.delete(method);
    });
  }

  handle(id: RequestId, method: string, params: unknown): void {
    const handler = this.#handlers.get(method) ?? this.#handlers.get('*');
    if (handler === undefined) {
      this.#reply(id, undefined, {
        code: JsonRpcErrorCode.MethodNotFound,
        message: `Method not found: ${method}`,
      });
      return;
    }
    if (this.#inFlight.has(id)) {
      this.#reply(id, undefined, {
        code: JsonRpcErrorCode.InvalidRequest,
        message: `Request id ${String(id)} is already in use`,
      });
      return;
    }
    if (this.#inFlight.size >= this.#maxInFlight) {
      this.#reply(id, undefined, {
        code: JsonRpcErrorCode.InternalError,
        message: 'Too many concurrent requests',
      });
      return;
    }
    const controller = new AbortController();
    this.#inFlight.set(id, controller);
    const context = { id, method, signal: controller.signal };
    new Promise((resolve) => resolve(handler(params, context)))
      .then(
        (result) => {
          if (!controller.signal.aborted) this.#reply(id, result ?? {}, undefined);
        },
        (error: unknown) => {
          if (!controller.signal.aborted) this.#reply(id, undefined, toWireError(error));
        },
      )
      .finally(() => {
        if (this.#inFlight.get(id) === controller) this.#inFlight.delete(id);
      })
      .catch(() => {});
  }

  /** The other side cancelled request `id`: its handler's signal aborts and no answer is sent. */
  cancel(id: RequestId, reason: unknown): void {
    this.#inFlight.get(id)?.abort(reason);
  }

  abortAll(reason: unknown): void {
    for (const controller of this.#inFlight.values()) controller.abort(reason);
    this.#inFlight.clear();
  }
}
