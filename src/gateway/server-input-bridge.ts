import type { ServerInputContext, ServerInputHandlers } from '../client/client-options.js';
import { toDisposable, type Disposable } from '../internal/disposable.js';
import { McpMethod } from '../protocol/methods.js';
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
} from '../protocol/types.js';
import { answerWith, rootsOf, type BridgedCall } from './bridged-call.js';

/** Options of `createServerInputBridge`. */
export interface ServerInputBridgeOptions {
  /**
   * The host's own answers, for a request no gateway client can take: none of them has a call in
   * flight on that server (or several do), or the client did not declare the capability. Without
   * a handler for it, the server gets -32601. Read at each request: a handler set on this object
   * later counts.
   */
  handlers?: ServerInputHandlers;
}

/**
 * Carries what legacy backends ask (`sampling/createMessage`, `elicitation/create`,
 * `roots/list`, sent as server-to-client requests) to the gateway client whose call it is. Give
 * `bridge.handlers` to every server of the host (`client: { handlers: bridge.handlers }`; the
 * CLI's `gateway serve` does), and the bridge to `createGateway({ host, bridge })`: the servers
 * then declare all three capabilities, and each request goes to the call's client in its era's
 * form (a legacy client: the same request; a modern client: an `input_required` round), or to
 * `options.handlers`.
 *
 * **Which client a request belongs to.** Over stdio a server's request names no call, and the
 * client does not know which of its HTTP response streams a request came on, so the bridge goes
 * by what is in flight on that server: the request goes to the call's client when exactly one
 * gateway call is running there, or when every call running there belongs to the same legacy
 * client; otherwise (no call, or calls of several clients) to `options.handlers`. A call whose
 * tool is waiting on a request it sent already (its client has not answered yet) is left out
 * when another call is running there: a tool asks one thing at a time, as a rule. Modern backends need
 * none of this: their `input_required` rounds belong to the call that got them.
 */
export class ServerInputBridge {
  /** The handlers to give the host's servers (`client.handlers`). */
  readonly handlers: ServerInputHandlers;
  /** The host's own answers (`options.handlers`). */
  readonly fallback: ServerInputHandlers | undefined;
  readonly #calls = new Set<ReadonlySet<BridgedCall>>();

  /** @internal Made by `createServerInputBridge`. */
  constructor(options: ServerInputBridgeOptions = {}) {
    this.fallback = options.handlers;
    const serve = (method: string) => (params: unknown, context: ServerInputContext) =>
      this.#serve(method, params, context);
    const elicit = serve(McpMethod.ElicitationCreate) as (
      params: ElicitRequestParams,
      context: ServerInputContext,
    ) => Promise<ElicitResult>;
    this.handlers = {
      sampling: serve(McpMethod.SamplingCreateMessage) as (
        params: CreateMessageRequestParams,
        context: ServerInputContext,
      ) => Promise<CreateMessageResult>,
      roots: async (context) => rootsOf(await this.#serve(McpMethod.RootsList, undefined, context)),
      elicitation: { form: elicit, url: elicit },
    };
  }

  /** @internal A gateway's calls in flight, searched for each request until disposed. */
  attach(calls: ReadonlySet<BridgedCall>): Disposable {
    this.#calls.add(calls);
    return toDisposable(() => this.#calls.delete(calls));
  }

  #serve(method: string, params: unknown, context: ServerInputContext): Promise<unknown> {
    const call = this.#route(context.serverName);
    if (call !== undefined) return call.serve(method, params, { ...context, defer: undefined });
    return answerWith(this.fallback, method, params, context, context.serverName);
  }

  /** The call a request of `server` belongs to, when that can be told (see the class comment). */
  #route(server: string | undefined): BridgedCall | undefined {
    if (server === undefined) return undefined;
    const running: BridgedCall[] = [];
    for (const calls of this.#calls)
      for (const call of calls) if (call.server === server) running.push(call);
    // A call whose tool waits on a request it asked already is not the one asking now, as a rule.
    const free = running.filter((call) => !call.waiting);
    return oneOwner(free.length > 0 ? free : running);
  }
}

/** The only call, or the first when they all belong to one legacy client; else undefined. */
function oneOwner(calls: readonly BridgedCall[]): BridgedCall | undefined {
  const [first] = calls;
  if (first === undefined) return undefined;
  if (calls.length === 1) return first;
  const oneLegacyClient =
    first.client.era === 'legacy' && calls.every((call) => call.client === first.client);
  return oneLegacyClient ? first : undefined;
}

/**
 * A bridge for a gateway's host: give `bridge.handlers` to the host's servers and the bridge to
 * `createGateway`. See `ServerInputBridge`.
 *
 * ```ts
 * const bridge = createServerInputBridge();
 * const host = new McpHost({
 *   servers: servers.map((server) => ({ ...server, client: { handlers: bridge.handlers } })),
 * });
 * await host.start();
 * const gateway = createGateway({ host, bridge });
 * ```
 */
export function createServerInputBridge(options?: ServerInputBridgeOptions): ServerInputBridge {
  return new ServerInputBridge(options);
}
