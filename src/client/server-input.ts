import { JsonRpcError, JsonRpcErrorCode } from '../errors/json-rpc-error.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import type { Disposable } from '../internal/disposable.js';
import type { JsonRpcPeer } from '../jsonrpc/peer.js';
import { isObject } from '../protocol/guards.js';
import { McpMethod } from '../protocol/methods.js';
import {
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type ElicitRequestParams,
  type InputRequest,
} from '../protocol/types.js';
import type { ServerInputContext, ServerInputHandlers } from './client-options.js';

/** What `defer()` throws: caught by the round, never seen by the caller. */
class InputDeferral extends Error {}

function defer(): never {
  throw new InputDeferral('input deferred');
}

/** One modern round's answers, and the requests a handler deferred (none: `undefined`). */
export interface InputRound {
  responses: Record<string, unknown>;
  deferred: Record<string, InputRequest> | undefined;
}

type ElicitationHandler = NonNullable<NonNullable<ServerInputHandlers['elicitation']>['form']>;

/**
 * Routes what a server asks of the client to the user's handlers, for both eras: legacy
 * server-to-client requests arrive through the peer; modern input requests arrive inside an
 * `input_required` result. Only what has a handler is advertised, and only what is advertised
 * is ever answered.
 */
export class ServerInput {
  readonly capabilities: ClientCapabilities;
  readonly #handlers: ServerInputHandlers;
  readonly #serverName: string | undefined;

  /**
   * These handlers with `overrides` over them, field by field (one request's own, modern era).
   */
  with(overrides: ServerInputHandlers): ServerInput {
    const elicitation = { ...this.#handlers.elicitation, ...overrides.elicitation };
    return new ServerInput({ ...this.#handlers, ...overrides, elicitation }, this.#serverName);
  }

  constructor(handlers: ServerInputHandlers, serverName: string | undefined) {
    this.#handlers = handlers;
    this.#serverName = serverName;
    const capabilities: ClientCapabilities = {};
    if (handlers.roots !== undefined) capabilities.roots = { listChanged: true };
    if (handlers.sampling !== undefined) capabilities.sampling = {};
    const { form, url } = handlers.elicitation ?? {};
    if (form !== undefined || url !== undefined) {
      capabilities.elicitation = {};
      if (form !== undefined) capabilities.elicitation.form = {};
      if (url !== undefined) capabilities.elicitation.url = {};
    }
    this.capabilities = capabilities;
  }

  /**
   * Legacy era: answer the server's requests. A method whose capability was not advertised has no
   * handler, so the peer answers -32601 and no handler runs; `ping` is always answered.
   */
  registerLegacyHandlers(peer: JsonRpcPeer): Disposable[] {
    const registrations = [peer.setRequestHandler(McpMethod.Ping, () => ({}))];
    for (const method of [
      McpMethod.SamplingCreateMessage,
      McpMethod.RootsList,
      McpMethod.ElicitationCreate,
    ]) {
      if (!this.#declares(method)) continue;
      registrations.push(
        peer.setRequestHandler(method, (params, context) =>
          this.#answer(
            method,
            params,
            { serverName: this.#serverName, signal: context.signal },
            'legacy',
          ),
        ),
      );
    }
    return registrations;
  }

  /**
   * Modern era: answer every input request of an `input_required` result, in parallel. An input
   * request the client never declared is a protocol violation: it fails the call and is never
   * shown to the user. A handler may `defer()`: the others still answer, and the round comes
   * back with what was deferred.
   */
  async answerInputRequests(
    requests: Record<string, InputRequest>,
    signal: AbortSignal,
    method: string,
  ): Promise<InputRound> {
    const entries = Object.entries(requests);
    for (const [key, request] of entries) {
      if (
        !isObject(request) ||
        typeof request.method !== 'string' ||
        !this.#declares(request.method, request.params)
      ) {
        throw new McpHostError(
          'PROTOCOL_VIOLATION',
          `'${method}' asked for input '${key}' of a kind the client did not declare (${
            isObject(request) && typeof request.method === 'string'
              ? request.method
              : 'malformed request'
          }); not shown to the user`,
          { serverName: this.#serverName, method },
        );
      }
    }
    const context = { serverName: this.#serverName, signal, defer };
    let deferred: Record<string, InputRequest> | undefined;
    const responses: Record<string, unknown> = {};
    await Promise.all(
      entries.map(async ([key, request]) => {
        try {
          responses[key] = await this.#answer(request.method, request.params, context, 'modern');
        } catch (error) {
          if (!(error instanceof InputDeferral)) throw error;
          (deferred ??= {})[key] = request;
        }
      }),
    );
    return { responses, deferred };
  }

  #declares(method: string, params?: unknown): boolean {
    switch (method) {
      case McpMethod.SamplingCreateMessage:
        return this.capabilities.sampling !== undefined;
      case McpMethod.RootsList:
        return this.capabilities.roots !== undefined;
      case McpMethod.ElicitationCreate: {
        if (this.capabilities.elicitation === undefined) return false;
        if (params === undefined) return true;
        return this.#elicitationHandler(params) !== undefined;
      }
      default:
        return false;
    }
  }

  #elicitationHandler(params: unknown): ElicitationHandler | undefined {
    const mode = isObject(params) && params.mode === 'url' ? 'url' : 'form';
    return this.#handlers.elicitation?.[mode];
  }

  async #answer(
    method: string,
    params: unknown,
    context: ServerInputContext,
    era: 'legacy' | 'modern',
  ): Promise<unknown> {
    switch (method) {
      case McpMethod.SamplingCreateMessage:
        return this.#handlers.sampling!(params as CreateMessageRequestParams, context);
      case McpMethod.RootsList:
        return { roots: await this.#handlers.roots!(context) };
      case McpMethod.ElicitationCreate: {
        const handler = this.#elicitationHandler(params);
        if (handler === undefined) {
          // Legacy: the spec's answer to an undeclared elicitation mode is invalid params.
          const mode = isObject(params) && typeof params.mode === 'string' ? params.mode : 'form';
          if (era === 'legacy') {
            throw new JsonRpcError(
              JsonRpcErrorCode.InvalidParams,
              `Elicitation mode '${mode}' is not supported by this client`,
            );
          }
          throw new McpHostError(
            'PROTOCOL_VIOLATION',
            `asked for an undeclared elicitation mode '${mode}'`,
            { serverName: this.#serverName },
          );
        }
        return handler(params as ElicitRequestParams, context);
      }
      default:
        throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
  }
}
