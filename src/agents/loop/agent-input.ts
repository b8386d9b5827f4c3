/**
 * What servers ask of an agent while its tools run. Sampling (a completion) is answered by a
 * model, but only after the caller's approval hook allows it and within rate and token limits;
 * anything else is refused with JSON-RPC error -1, the code the spec gives a refused sampling
 * request. Elicitation (a question for a person) goes to the caller's handler; without one, a
 * modern server's question pauses the run (the loop turns it into a continuation).
 */
import { JsonRpcError } from '../../errors/json-rpc-error.js';
import { McpHostError } from '../../errors/mcp-host-error.js';
import type { ServerInputContext, ServerInputHandlers } from '../../client/client-options.js';
import { isObject } from '../../protocol/guards.js';
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
} from '../../protocol/types.js';
import type { ModelResultPart } from '../model-result.js';
import type { ModelClient, ModelMessage } from '../models/model-client.js';

/** A server's sampling request, as the approval hook sees it. */
export interface SamplingRequest {
  /** The server that asks (its configured name). */
  readonly serverName: string | undefined;
  /** What it asks for: the messages, system prompt and token bound, as it sent them. */
  readonly params: CreateMessageRequestParams;
}

/** How an agent answers sampling requests (see `AgentOptions.sampling`). */
export interface AgentSamplingOptions {
  /**
   * Decides each request before any model sees it: true answers it, false refuses it. Required:
   * a server never gets a completion nobody allowed.
   */
  approve: (request: SamplingRequest, context: ServerInputContext) => boolean | Promise<boolean>;
  /** The model that answers (default: the agent's). */
  model?: ModelClient;
  /** Output tokens of one answer: a request asking for more gets this many (default 1,024). */
  maxTokensPerRequest?: number;
  /** Requests answered in any 60 s; more are refused (default 10). */
  maxRequestsPerMinute?: number;
  /**
   * Tokens (input and output, as the model reports them) answered in any 60 s; once reached,
   * requests are refused until older answers leave the window (default 50,000).
   */
  maxTokensPerMinute?: number;
  /** The clock the windows are measured by (default `Date.now`). */
  now?: () => number;
}

/** The defaults of {@link AgentSamplingOptions}' limits. */
export const DEFAULT_SAMPLING_LIMITS = Object.freeze({
  maxTokensPerRequest: 1_024,
  maxRequestsPerMinute: 10,
  maxTokensPerMinute: 50_000,
});

/** A question a server asks a person while one of the agent's tools runs. */
export interface AgentElicitation {
  /** The server that asks (its configured name). */
  readonly serverName: string | undefined;
  /** The question: a form (`requestedSchema`) or a URL to send the person to (`mode: 'url'`). */
  readonly params: ElicitRequestParams;
}

/** Answers a server's question (see `AgentOptions.elicitation`). */
export type AgentElicitationHandler = (
  request: AgentElicitation,
  context: ServerInputContext,
) => Promise<ElicitResult>;

/** JSON-RPC's "request refused by the user", which the spec uses for sampling. */
const REFUSED = -1;
const WINDOW_MS = 60_000;

/** Answers sampling requests with a model, behind the approval hook and the limits. */
export class SamplingBridge {
  readonly #options: AgentSamplingOptions;
  readonly #model: ModelClient;
  readonly #limits: Required<Omit<AgentSamplingOptions, 'approve' | 'model' | 'now'>>;
  readonly #now: () => number;
  /** When each answered request started, oldest first. */
  readonly #answered: number[] = [];
  /** Tokens each answer used, and when, oldest first. */
  readonly #spent: { at: number; tokens: number }[] = [];

  constructor(options: AgentSamplingOptions, model: ModelClient) {
    if (typeof options?.approve !== 'function')
      throw new McpHostError(
        'INVALID_ARGUMENT',
        'agent: sampling needs an approve(request) hook: a server never gets a completion nobody allowed',
      );
    const limits: Record<keyof typeof DEFAULT_SAMPLING_LIMITS, number> = {
      ...DEFAULT_SAMPLING_LIMITS,
    };
    for (const key of Object.keys(limits) as (keyof typeof limits)[]) {
      const value = options[key];
      if (value === undefined) continue;
      if (!Number.isInteger(value) || value < 1)
        throw new McpHostError(
          'INVALID_ARGUMENT',
          `agent: sampling.${key} must be an integer of at least 1`,
        );
      limits[key] = value;
    }
    this.#options = options;
    this.#model = options.model ?? model;
    this.#limits = limits;
    this.#now = options.now ?? Date.now;
  }

  /** The handler a client calls (`ServerInputHandlers.sampling`). */
  readonly answer = async (
    params: CreateMessageRequestParams,
    context: ServerInputContext,
  ): Promise<CreateMessageResult> => {
    const server = context.serverName === undefined ? 'a server' : `server '${context.serverName}'`;
    const messages = toModelMessages(params, server);
    const over = this.#overLimit();
    if (over !== undefined) throw refused(`${server}'s sampling request was refused: ${over}`);
    const allowed = await this.#options.approve(
      { serverName: context.serverName, params },
      context,
    );
    if (allowed !== true)
      throw refused(`${server}'s sampling request was refused by the approval hook`);
    const over2 = this.#overLimit();
    if (over2 !== undefined) throw refused(`${server}'s sampling request was refused: ${over2}`);
    const started = this.#now();
    this.#answered.push(started);
    const asked = typeof params.maxTokens === 'number' ? params.maxTokens : Infinity;
    const maxOutputTokens = Math.max(1, Math.min(asked, this.#limits.maxTokensPerRequest));
    let text = '';
    let stopReason: string | undefined;
    let tokens = 0;
    try {
      for await (const event of this.#model.stream({
        messages,
        tools: [],
        signal: context.signal,
        maxOutputTokens,
      })) {
        if (event.type === 'text-delta') text += event.text;
        else if (event.type === 'done') {
          stopReason =
            event.stopReason === 'stop'
              ? 'endTurn'
              : event.stopReason === 'length'
                ? 'maxTokens'
                : undefined;
          tokens = (event.usage?.inputTokens ?? 0) + (event.usage?.outputTokens ?? 0);
        }
      }
    } finally {
      if (tokens > 0) this.#spent.push({ at: started, tokens });
    }
    return {
      role: 'assistant',
      content: { type: 'text', text },
      model: this.#model.model,
      ...(stopReason === undefined ? {} : { stopReason }),
    };
  };

  /** Why a request now would be over a limit, or undefined. */
  #overLimit(): string | undefined {
    const since = this.#now() - WINDOW_MS;
    while (this.#answered.length > 0 && this.#answered[0]! <= since) this.#answered.shift();
    while (this.#spent.length > 0 && this.#spent[0]!.at <= since) this.#spent.shift();
    const { maxRequestsPerMinute, maxTokensPerMinute } = this.#limits;
    if (this.#answered.length >= maxRequestsPerMinute)
      return `the agent answers at most ${maxRequestsPerMinute} sampling requests a minute (maxRequestsPerMinute)`;
    const spent = this.#spent.reduce((sum, entry) => sum + entry.tokens, 0);
    if (spent >= maxTokensPerMinute)
      return `the agent's sampling used ${spent} tokens in the last minute, its limit is ${maxTokensPerMinute} (maxTokensPerMinute)`;
    return undefined;
  }
}

/**
 * The handlers an agent gives its calls (and, when it made its host, its servers): sampling when
 * it has `sampling`, and elicitation, which goes to `elicitation` or, without one, defers (modern
 * era: the run pauses). `legacy` leaves out what a legacy server cannot be given: elicitation
 * without a handler (a live request cannot wait for a later answer, so it is not offered).
 */
export function agentInputHandlers(
  sampling: SamplingBridge | undefined,
  elicitation: AgentElicitationHandler | undefined,
  era: 'any' | 'legacy',
): ServerInputHandlers {
  const handlers: ServerInputHandlers = {};
  if (sampling !== undefined) handlers.sampling = sampling.answer;
  if (elicitation === undefined && era === 'legacy') return handlers;
  const ask = (params: ElicitRequestParams, context: ServerInputContext): Promise<ElicitResult> => {
    if (elicitation !== undefined)
      return elicitation({ serverName: context.serverName, params }, context);
    if (context.defer !== undefined) return context.defer();
    return Promise.resolve({ action: 'decline' });
  };
  handlers.elicitation = { form: ask, url: ask };
  return handlers;
}

/** A sampling request's messages as the model's conversation. */
function toModelMessages(params: CreateMessageRequestParams, server: string): ModelMessage[] {
  if (!isObject(params) || !Array.isArray(params.messages))
    throw new JsonRpcError(-32602, `${server}'s sampling request has no messages`);
  const messages: ModelMessage[] = [];
  if (typeof params.systemPrompt === 'string' && params.systemPrompt !== '')
    messages.push({ role: 'system', text: params.systemPrompt });
  for (const [index, message] of params.messages.entries()) {
    const parts = contentParts(message?.content);
    if (parts === undefined || (message.role !== 'user' && message.role !== 'assistant'))
      throw new JsonRpcError(
        -32602,
        `${server}'s sampling request: messages[${index}] is not a user or assistant message of text, image or audio content`,
      );
    if (message.role === 'user') messages.push({ role: 'user', parts });
    else
      messages.push({
        role: 'assistant',
        text: parts.map((part) => (part.type === 'text' ? part.text : '')).join(''),
        toolCalls: [],
      });
  }
  return messages;
}

/** Text, image and audio content (one block or a list) as model parts; anything else: undefined. */
function contentParts(content: unknown): ModelResultPart[] | undefined {
  const blocks = Array.isArray(content) ? content : [content];
  const parts: ModelResultPart[] = [];
  for (const block of blocks) {
    if (!isObject(block)) return undefined;
    if (block.type === 'text' && typeof block.text === 'string')
      parts.push({ type: 'text', text: block.text });
    else if (
      (block.type === 'image' || block.type === 'audio') &&
      typeof block.data === 'string' &&
      typeof block.mimeType === 'string'
    )
      parts.push({ type: block.type, data: block.data, mimeType: block.mimeType });
    else return undefined;
  }
  return parts;
}

function refused(message: string): JsonRpcError {
  return new JsonRpcError(REFUSED, message);
}
