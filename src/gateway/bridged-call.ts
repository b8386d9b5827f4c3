import type {
  InputContinuation,
  InputResume,
  ServerInputContext,
  ServerInputHandlers,
} from '../client/client-options.js';
import { JsonRpcError, JsonRpcErrorCode } from '../errors/json-rpc-error.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { toMcpHostError } from '../errors/to-mcp-host-error.js';
import { onAbort } from '../internal/signals.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { isObject } from '../protocol/guards.js';
import { McpMethod } from '../protocol/methods.js';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  InputRequest,
  LoggingMessageParams,
  ProgressNotificationParams,
  Root,
} from '../protocol/types.js';
import type { PendingEntry } from './pending-input.js';

/** The gateway client a call belongs to, as the call reaches it. */
export interface CallClient {
  /**
   * `legacy`: a session opened by `initialize`; what a backend asks is sent to it as a real
   * server-to-client request. `modern`: what a backend asks goes back in an `input_required`
   * result, answered by the client's retry.
   */
  readonly era: 'legacy' | 'modern';
  /** What the client declared (`initialize`, or the request's `_meta`). */
  readonly capabilities: ClientCapabilities;
  /** Legacy: sends `method` to the client and resolves with its answer. */
  request(method: string, params: JsonObject | undefined, signal: AbortSignal): Promise<unknown>;
  /** Sends a backend's log message to the client (`notifications/message`). */
  log?(message: LoggingMessageParams): void;
}

/** Where a call stands after the client's request: done, or waiting for the client's input. */
export type BridgedOutcome =
  | { kind: 'result'; result: JsonObject }
  | { kind: 'failed'; error: unknown }
  | { kind: 'input'; inputRequests: Record<string, InputRequest> };

/** A legacy backend's request waiting for the modern client's retry. */
interface Asked {
  request: InputRequest;
  /** Already in an `input_required` result the client has not answered yet. */
  sent: boolean;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

/** What a bridged request is: a tool call, a prompt's get, a resource's read. */
export type BridgedKind = 'tool' | 'prompt' | 'resource';

/** What a bridged request's backend call is given (each run: the first, and each resumption). */
export interface BridgedInvokeOptions {
  signal: AbortSignal;
  /** The request's own input handlers (a modern backend's rounds come to them). */
  input: ServerInputHandlers;
  /** The next round of a deferred request: the answers, and the backend's `requestState`. */
  resume?: InputResume;
  /** The backend's progress (only when the client asked for it). */
  onProgress?: (progress: ProgressNotificationParams) => void;
}

export interface BridgedCallInit {
  kind: BridgedKind;
  /** The tool's or prompt's exposed name, or the resource's URI. */
  name: string;
  /** Sends the request to the backend (through the host), with `options`. */
  invoke(options: BridgedInvokeOptions): Promise<JsonObject>;
  /**
   * The backend serving it, where known (a tool's; undefined for an unknown tool, which fails,
   * and for prompts and resources: a legacy backend's live requests are then not routed to it).
   */
  server: string | undefined;
  client: CallClient;
  /** Ask the backend for progress (the client's first request had a progress token). */
  progress: boolean;
  /** The host's own answers, for what the client cannot answer. */
  fallback: ServerInputHandlers | undefined;
  /** Told once when the call is over (its result given, failed, cancelled or expired). */
  onDone(call: BridgedCall): void;
}

/**
 * One request of a gateway client (a `tools/call`, a `prompts/get`, a `resources/read`), which may outlive the client's request: what the backend
 * asks on the way (sampling, elicitation, roots) goes to that client in its era's form, or to the
 * host's own handlers when the client cannot answer it, or is refused with -32601.
 *
 * - A **legacy backend**'s request arrives live (through `ServerInputBridge`, while its
 *   connection waits). A legacy client gets it as a server-to-client request; for a modern client
 *   the call waits (`next` resolves with `input`) until the client's retry brings the answer
 *   (`answer`), and the backend's request is answered then.
 * - A **modern backend**'s `input_required` round comes through the call's own input handlers: a
 *   legacy client's answer is given at once (the client layer retries the backend); for a modern
 *   client the handler defers, the round goes to the client, and its retry resumes the backend
 *   call with the answers and the backend's `requestState`.
 */
export class BridgedCall implements PendingEntry {
  readonly kind: BridgedKind;
  readonly name: string;
  readonly server: string | undefined;
  readonly client: CallClient;
  readonly #init: BridgedCallInit;
  readonly #controller = new AbortController();
  readonly #asked = new Map<string, Asked>();
  #settled: { result: JsonObject } | { error: unknown } | undefined;
  #continuation: InputContinuation | undefined;
  #wake: (() => void) | undefined;
  #progress: ((progress: ProgressNotificationParams) => void) | undefined;
  #keys = 0;
  #done = false;
  /** The backend's live requests this call is answering now. */
  #answering = 0;

  constructor(init: BridgedCallInit) {
    this.#init = init;
    this.kind = init.kind;
    this.name = init.name;
    this.server = init.server;
    this.client = init.client;
  }

  /** Whether the backend's tool waits on a request of its own this call is answering. */
  get waiting(): boolean {
    return this.#answering > 0;
  }

  /**
   * Sends the call to the backend; with `inputResponses` (a modern client's answers sent without
   * a `requestState`), they go with it, for a backend that takes them so.
   */
  start(inputResponses?: JsonObject): void {
    this.#run(inputResponses === undefined ? undefined : { inputResponses });
  }

  /**
   * Waits for what the client's request gets: the result, the failure, or the input the backend
   * wants. `signal` is the client's request: its cancellation cancels the call on the backend.
   * `onProgress` gets the backend's progress meanwhile.
   */
  async next(
    signal: AbortSignal,
    onProgress?: (progress: ProgressNotificationParams) => void,
  ): Promise<BridgedOutcome> {
    this.#progress = onProgress;
    const removeAbort = onAbort(signal, (reason) => this.cancel(reason));
    try {
      for (;;) {
        if (signal.aborted) return { kind: 'failed', error: signal.reason };
        const wanted = this.#unsent();
        if (wanted !== undefined) {
          // Input asked together (one burst of backend requests) goes out in one round.
          await new Promise((resolve) => setImmediate(resolve));
          return { kind: 'input', inputRequests: this.#unsent() ?? wanted };
        }
        const settled = this.#settled;
        if (settled !== undefined) {
          if ('result' in settled) return this.#finish({ kind: 'result', result: settled.result });
          const continuation = deferredContinuation(settled.error);
          if (continuation !== undefined && !this.#controller.signal.aborted) {
            this.#continuation = continuation;
            this.#settled = undefined;
            return { kind: 'input', inputRequests: continuation.inputRequests };
          }
          return this.#finish({ kind: 'failed', error: settled.error });
        }
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      removeAbort();
      this.#progress = undefined;
    }
  }

  /** The client's retry brought `responses` (by the keys of the input it was sent). */
  answer(responses: JsonObject): void {
    const continuation = this.#continuation;
    if (continuation !== undefined) {
      this.#continuation = undefined;
      const resume: InputResume = {
        inputResponses: { ...continuation.inputResponses, ...responses },
      };
      if (continuation.requestState !== undefined) resume.requestState = continuation.requestState;
      this.#run(resume);
      return;
    }
    for (const [key, asked] of this.#asked) {
      if (Object.hasOwn(responses, key)) {
        this.#asked.delete(key);
        asked.resolve(responses[key]);
      } else {
        // Not answered: asked again in the next round.
        asked.sent = false;
      }
    }
  }

  /** Cancels the call on the backend (the client cancelled, or the gateway gave it up). */
  cancel(reason: unknown): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
    for (const asked of this.#asked.values()) asked.reject(reason);
    this.#asked.clear();
    this.#settled ??= { error: reason };
    this.#finishQuietly();
    this.#wake?.();
  }

  /** The store gave the call up (its client never retried, or the gateway closed). */
  expire(reason: McpHostError): void {
    this.cancel(reason);
  }

  /**
   * Answers what the backend asks, in the wire's shape (`roots/list`: `{ roots }`) (`context.defer` present: a modern backend's round; absent: a
   * legacy backend's live request): the client when it declared the capability, else the host's
   * handlers, else -32601.
   */
  async serve(method: string, params: unknown, context: ServerInputContext): Promise<unknown> {
    if (clientCan(this.client.capabilities, method, params)) {
      if (this.client.era === 'modern' && context.defer !== undefined) context.defer();
      this.#answering++;
      try {
        return await (this.client.era === 'legacy'
          ? this.client.request(method, asParams(params), context.signal)
          : this.#ask(method, params, context.signal));
      } finally {
        this.#answering--;
      }
    }
    return answerWith(this.#init.fallback, method, params, context, this.server);
  }

  /**
   * The call's own input handlers (they reach modern backends only): one for each kind the client
   * or the host can answer, every other kind explicitly absent, so that it is not declared.
   */
  #inputHandlers(): ServerInputHandlers {
    const caps = this.client.capabilities;
    const fallback = this.#init.fallback;
    const can = (method: string, params?: unknown) =>
      clientCan(caps, method, params) || handlerOf(fallback, method, params) !== undefined;
    const serve = (method: string) => (params: unknown, context: ServerInputContext) =>
      this.serve(method, params, context);
    const elicit = serve(McpMethod.ElicitationCreate) as (
      params: ElicitRequestParams,
      context: ServerInputContext,
    ) => Promise<ElicitResult>;
    return {
      sampling: can(McpMethod.SamplingCreateMessage)
        ? (serve(McpMethod.SamplingCreateMessage) as (
            params: CreateMessageRequestParams,
            context: ServerInputContext,
          ) => Promise<CreateMessageResult>)
        : undefined,
      roots: can(McpMethod.RootsList)
        ? async (context) => rootsOf(await this.serve(McpMethod.RootsList, undefined, context))
        : undefined,
      elicitation: {
        form: can(McpMethod.ElicitationCreate, { mode: 'form' }) ? elicit : undefined,
        url: can(McpMethod.ElicitationCreate, { mode: 'url' }) ? elicit : undefined,
      },
    };
  }

  #run(resume: InputResume | undefined): void {
    this.#settled = undefined;
    this.#init
      .invoke({
        signal: this.#controller.signal,
        input: this.#inputHandlers(),
        ...(resume === undefined ? {} : { resume }),
        ...(this.#init.progress
          ? { onProgress: (progress: ProgressNotificationParams) => this.#progress?.(progress) }
          : {}),
      })
      .then(
        (result) => (this.#settled = { result }),
        (error: unknown) => (this.#settled = { error }),
      )
      .finally(() => this.#wake?.())
      .catch(() => {});
  }

  /** A legacy backend's request for a modern client: waits for the client's retry. */
  #ask(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    if (this.#controller.signal.aborted)
      return Promise.reject(asError(this.#controller.signal.reason));
    const key = `${keyPrefix(method)}-${++this.#keys}`;
    return new Promise((resolve, reject) => {
      const request: InputRequest = { method };
      if (isObject(params)) request.params = params;
      const remove = onAbort(signal, (reason) => {
        if (this.#asked.delete(key)) reject(asError(reason));
      });
      this.#asked.set(key, {
        request,
        sent: false,
        resolve: (value) => {
          remove();
          resolve(value);
        },
        reject: (reason) => {
          remove();
          reject(asError(reason));
        },
      });
      this.#wake?.();
    });
  }

  /** The asked requests not sent to the client yet, marked sent; undefined when none. */
  #unsent(): Record<string, InputRequest> | undefined {
    let wanted: Record<string, InputRequest> | undefined;
    for (const [key, asked] of this.#asked) {
      if (asked.sent) continue;
      asked.sent = true;
      (wanted ??= {})[key] = asked.request;
    }
    return wanted;
  }

  #finish(outcome: BridgedOutcome): BridgedOutcome {
    this.#finishQuietly();
    return outcome;
  }

  #finishQuietly(): void {
    if (this.#done) return;
    this.#done = true;
    this.#init.onDone(this);
  }
}

/** Whether `capabilities` declare what `method` (with these params) needs. */
export function clientCan(
  capabilities: ClientCapabilities,
  method: string,
  params: unknown,
): boolean {
  switch (method) {
    case McpMethod.SamplingCreateMessage:
      return isObject(capabilities.sampling);
    case McpMethod.RootsList:
      return isObject(capabilities.roots);
    case McpMethod.ElicitationCreate: {
      const elicitation = capabilities.elicitation;
      if (!isObject(elicitation)) return false;
      if (isObject(params) && params.mode === 'url') return isObject(elicitation.url);
      // An empty elicitation capability means form mode (the spec's backward compatibility).
      return isObject(elicitation.form) || !isObject(elicitation.url);
    }
    default:
      return false;
  }
}

type AnyHandler = (params: unknown, context: ServerInputContext) => Promise<unknown>;

/** The host's handler for `method` (an elicitation by its mode), or undefined. */
export function handlerOf(
  handlers: ServerInputHandlers | undefined,
  method: string,
  params: unknown,
): AnyHandler | undefined {
  switch (method) {
    case McpMethod.SamplingCreateMessage:
      return handlers?.sampling as AnyHandler | undefined;
    case McpMethod.RootsList: {
      const roots = handlers?.roots;
      return roots === undefined
        ? undefined
        : async (_params, context) => ({ roots: await roots(context) });
    }
    case McpMethod.ElicitationCreate: {
      const mode = isObject(params) && params.mode === 'url' ? 'url' : 'form';
      return handlers?.elicitation?.[mode] as AnyHandler | undefined;
    }
    default:
      return undefined;
  }
}

/** Answers with the host's handler, or refuses with -32601 naming what could not be answered. */
export async function answerWith(
  handlers: ServerInputHandlers | undefined,
  method: string,
  params: unknown,
  context: ServerInputContext,
  server: string | undefined,
): Promise<unknown> {
  const handler = handlerOf(handlers, method, params);
  if (handler === undefined)
    throw new JsonRpcError(
      JsonRpcErrorCode.MethodNotFound,
      `Method not found: ${method} (the gateway's client did not declare it and the host has no handler for it${server === undefined ? '' : `; asked by server '${server}'`})`,
    );
  return handler(params, context);
}

/** The roots of a `roots/list` answer (`{ roots }`). */
export function rootsOf(answer: unknown): Root[] {
  if (isObject(answer) && Array.isArray(answer.roots)) return answer.roots as Root[];
  throw new McpHostError('PROTOCOL_VIOLATION', "the answer to 'roots/list' has no roots list");
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : toMcpHostError(reason);
}

function asParams(params: unknown): JsonObject | undefined {
  return isObject(params) ? params : undefined;
}

function keyPrefix(method: string): string {
  switch (method) {
    case McpMethod.SamplingCreateMessage:
      return 'sampling';
    case McpMethod.RootsList:
      return 'roots';
    default:
      return 'elicitation';
  }
}

/** The continuation of a call a handler deferred (`INPUT_DEFERRED`), or undefined. */
function deferredContinuation(error: unknown): InputContinuation | undefined {
  const local = toMcpHostError(error);
  if (local.code !== 'INPUT_DEFERRED') return undefined;
  const continuation = isObject(local.details) ? local.details.continuation : undefined;
  if (!isObject(continuation) || !isObject(continuation.inputRequests)) return undefined;
  return continuation as unknown as InputContinuation;
}
