/**
 * A small agent of our own: a model (any `ModelClient`), the tools of a host or a view (and native
 * tools beside them), and a loop that asks the model, runs the calls it makes in parallel through
 * the tool set (so every host policy applies), feeds the results back and stops on a final answer,
 * the step limit, the token budget or an abort. `stream` yields what happens as it happens, for a
 * UI; `run` drains it. See docs/agents.md (The agent loop).
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import { JsonRpcError } from '../../errors/json-rpc-error.js';
import { toMcpHostError } from '../../errors/to-mcp-host-error.js';
import type { CallContext, NativeTool } from '../../host/host-tool.js';
import { McpHost } from '../../host/mcp-host.js';
import type { HostServerDefinition } from '../../host/server-definition.js';
import type { HostView } from '../../host/views/host-view.js';
import type { ViewOptions } from '../../host/views/view-access.js';
import type { InputResume } from '../../client/client-options.js';
import {
  createAgentToolset,
  type AgentTool,
  type AgentToolset,
  type ToolSource,
} from '../agent-toolset.js';
import { toModelError, type ModelToolResult } from '../model-result.js';
import type {
  ModelClient,
  ModelMessage,
  ModelToolCall,
  ModelUsage,
} from '../models/model-client.js';
import {
  createToolSearch,
  type ToolSearch,
  type ToolSearchOptions,
} from '../search/tool-search.js';
import {
  answerPending,
  nextPending,
  pausedCalls,
  type AgentPending,
  type PausedCall,
  type PausedRun,
} from './agent-continuation.js';
import {
  agentInputHandlers,
  SamplingBridge,
  type AgentElicitationHandler,
  type AgentSamplingOptions,
} from './agent-input.js';
import { NativeSource } from './native-source.js';
import type { ServerInputHandlers } from '../../client/client-options.js';
import type { CreateMessageResult, ElicitResult, Root } from '../../protocol/types.js';

/** How an agent is made (the builder, `agent()`, sets the same). */
export interface AgentOptions {
  /** The model that answers. */
  model: ModelClient;
  /** A host the caller owns (and closes): the agent uses its tools. */
  host?: McpHost;
  /**
   * Servers the agent connects itself (on its first run): it owns that host and closes it with
   * `close()`. Not with `host`.
   */
  servers?: readonly HostServerDefinition[];
  /**
   * Narrows the tools: a view of `host` (or of the agent's own host) by its options or its name
   * in `McpHostOptions.views`, or a `HostView` already made (then `host` and `servers` are not
   * needed).
   */
  view?: HostView | ViewOptions | string;
  /** The system prompt. */
  system?: string;
  /** Tools of the application, offered beside the MCP tools (they win a name clash). */
  tools?: readonly NativeTool[];
  /** Who is calling: the host's per-agent permissions and approval hook see it. */
  context?: CallContext;
  /** Model calls per run (default 20); the run stops with `max-steps` after the last one's tools. */
  maxSteps?: number;
  /** Tool calls run per step (default 16); the rest get an error result the model reads. */
  maxToolCallsPerStep?: number;
  /** Idle timeout of each tool call (default: the host's). */
  callTimeoutMs?: number;
  /** Token budget of a run (input plus output, as the model reports them): stops with `budget`. */
  maxTokens?: number;
  /**
   * Tool search for large catalogues: the model is offered a search tool (and pinned tools) and
   * loads the tools it needs (see `createToolSearch`). `true` for the defaults.
   */
  toolSearch?: boolean | ToolSearchOptions;
  /**
   * Sampling: a server's request for a completion, made while one of the agent's tools runs, is
   * answered by the agent's model (or `sampling.model`) once `sampling.approve` allows it, within
   * rate and token limits; refused, the server gets error -1 saying why. Without it, servers are
   * not offered sampling.
   */
  sampling?: AgentSamplingOptions;
  /**
   * A server's question for a person (elicitation), made while one of the agent's tools runs.
   * Without it, a modern (2026-07-28) server's question pauses the run: it ends with
   * `stopReason: 'input-required'` and `pending`, plain JSON to keep, show a person and resume
   * with `run({ resume: pending, answer })`, in another process too; legacy servers are then not
   * offered elicitation (their questions live and die with the connection). A handler may
   * `context.defer()` a modern server's question to the same effect.
   */
  elicitation?: AgentElicitationHandler;
}

/** The defaults of {@link AgentOptions}. */
export const DEFAULT_AGENT_OPTIONS = {
  maxSteps: 20,
  maxToolCallsPerStep: 16,
} as const;

/** Why a run ended. */
export type AgentStopReason = 'final' | 'max-steps' | 'budget' | 'aborted' | 'input-required';

/** What a run ends with. */
export interface AgentResult {
  /** The last answer's text (the final answer when `stopReason` is `final`). */
  text: string;
  /** The whole conversation, system prompt included: pass it to `run` to go on. */
  messages: ModelMessage[];
  /** Model calls made. */
  steps: number;
  /** Tokens used over the run, summed over the model's replies. */
  usage: Required<ModelUsage>;
  stopReason: AgentStopReason;
  /**
   * `input-required`: the question a server asked, to show a person; resume with
   * `run({ resume: pending, answer })`.
   */
  pending?: AgentPending;
}

/** Resumes a paused run: its `pending` and the person's answer (an `ElicitResult` for elicitation). */
export interface AgentResumption {
  resume: AgentPending;
  answer: ElicitResult | CreateMessageResult | { roots: Root[] };
}

/** What a run starts from: a prompt, a conversation to go on with, or a paused run to resume. */
export type AgentInput = string | readonly ModelMessage[] | AgentResumption;

/** What a run streams, in order: per step `step-start`, text and calls, then one `done`. */
export type AgentEvent =
  | { type: 'step-start'; step: number }
  | { type: 'text-delta'; step: number; text: string }
  | { type: 'tool-call-started'; step: number; id: string; name: string; args: unknown }
  | {
      type: 'tool-call-finished';
      step: number;
      id: string;
      name: string;
      result: ModelToolResult;
      durationMs: number;
    }
  /** A server asked for input the run cannot give now: the run pauses (then `done`). */
  | { type: 'input-required'; step: number; pending: AgentPending }
  | { type: 'done'; result: AgentResult };

/** Per run. */
export interface AgentRunOptions {
  /** Stops the run: the model's request and the calls in flight are cancelled; `aborted`. */
  signal?: AbortSignal;
}

/**
 * An agent (see the module comment). Runs are independent and may overlap. When it made its own
 * host (`servers`), `close()` (or `await using`) closes it.
 */
export class Agent implements AsyncDisposable {
  readonly #options: AgentOptions;
  readonly #owned: McpHost | undefined;
  readonly #source: ToolSource;
  readonly #maxSteps: number;
  readonly #maxCalls: number;
  /** The handlers each call gets for its server's input rounds (modern era). */
  readonly #input: ServerInputHandlers;
  /**
   * How this agent answers what servers ask on their own (legacy servers' requests: sampling, and
   * elicitation when it has a handler). Its own host's servers have them; give them to the
   * servers of a host you build for it (`client.handlers`) to the same effect.
   */
  readonly serverInput: ServerInputHandlers;
  #started: Promise<unknown> | undefined;
  #closed = false;

  constructor(options: AgentOptions) {
    if (typeof options?.model?.stream !== 'function')
      throw invalid('a model (a ModelClient) is required');
    if (options.host !== undefined && options.servers !== undefined)
      throw invalid('give either host or servers, not both');
    const maxSteps = options.maxSteps ?? DEFAULT_AGENT_OPTIONS.maxSteps;
    const maxCalls = options.maxToolCallsPerStep ?? DEFAULT_AGENT_OPTIONS.maxToolCallsPerStep;
    if (!Number.isInteger(maxSteps) || maxSteps < 1)
      throw invalid('maxSteps must be an integer of at least 1');
    if (!Number.isInteger(maxCalls) || maxCalls < 1)
      throw invalid('maxToolCallsPerStep must be an integer of at least 1');
    if (options.maxTokens !== undefined && !(options.maxTokens > 0))
      throw invalid('maxTokens must be a positive number');
    if (options.callTimeoutMs !== undefined && !(options.callTimeoutMs > 0))
      throw invalid('callTimeoutMs must be a positive number of milliseconds');
    if (
      options.toolSearch !== undefined &&
      options.toolSearch !== true &&
      options.toolSearch !== false
    )
      // Its options are checked now, not at the first step (the tool set does not matter).
      createToolSearch(createAgentToolset(NO_TOOLS, { provider: 'openai' }), options.toolSearch);
    if (options.elicitation !== undefined && typeof options.elicitation !== 'function')
      throw invalid('elicitation must be a function (request, context) => Promise<ElicitResult>');
    const sampling =
      options.sampling === undefined
        ? undefined
        : new SamplingBridge(options.sampling, options.model);
    this.#options = options;
    this.#maxSteps = maxSteps;
    this.#maxCalls = maxCalls;
    this.#input = agentInputHandlers(sampling, options.elicitation, 'any');
    const view = options.view;
    const given = typeof view === 'object' && 'callTool' in view ? view : undefined;
    let host = options.host;
    const handlers = agentInputHandlers(sampling, options.elicitation, 'legacy');
    this.serverInput = handlers;
    if (host === undefined && given === undefined) {
      // Its own servers also get the handlers for what a legacy server asks on its own.
      const servers = (options.servers ?? []).map((server) => ({
        ...server,
        client: { ...server.client, handlers: { ...handlers, ...server.client?.handlers } },
      }));
      host = new McpHost({ servers });
      this.#owned = host;
    }
    let source: ToolSource = given ?? (view === undefined ? host! : host!.view(view));
    if (options.tools !== undefined && options.tools.length > 0)
      source = new NativeSource(source, options.tools);
    this.#source = source;
  }

  /**
   * Runs the agent on `input` (a prompt, a conversation to go on with, or a paused run to resume)
   * to its end.
   */
  async run(input: AgentInput, options: AgentRunOptions = {}): Promise<AgentResult> {
    for await (const event of this.stream(input, options))
      if (event.type === 'done') return event.result;
    throw new McpHostError('INTERNAL', 'agent: the run ended without a result');
  }

  /**
   * Runs the agent, yielding its events (see {@link AgentEvent}); the last is `done` with the
   * result. A model that fails ends the run with its typed error (thrown from the iteration); a
   * tool that fails is an error result the model reads.
   */
  async *stream(
    input: AgentInput,
    options: AgentRunOptions = {},
  ): AsyncGenerator<AgentEvent, void, undefined> {
    if (this.#closed) throw new McpHostError('CONNECTION_CLOSED', 'agent: closed');
    // The run's own signal: the caller's, and fired too when the caller stops iterating early,
    // so no model request or tool call outlives the run.
    const controller = new AbortController();
    const outer = options.signal;
    const onAbort = (): void => controller.abort(outer?.reason);
    if (outer?.aborted === true) onAbort();
    else outer?.addEventListener('abort', onAbort, { once: true });
    try {
      yield* this.#loop(input, controller.signal);
    } finally {
      outer?.removeEventListener('abort', onAbort);
      controller.abort(new McpHostError('ABORTED', 'agent: the run ended'));
    }
  }

  async *#loop(
    input: AgentInput,
    signal: AbortSignal,
  ): AsyncGenerator<AgentEvent, void, undefined> {
    const model = this.#options.model;
    let resumed: PausedRun | undefined;
    let run: RunState;
    if (isResumption(input)) {
      resumed = answerPending(input.resume, input.answer);
      const { messages, steps, usage, text, loaded } = resumed;
      run = { messages, steps, usage: { ...usage }, text, search: undefined, loaded };
    } else {
      const messages = initialMessages(input, this.#options.system);
      run = {
        messages,
        steps: 0,
        usage: { inputTokens: 0, outputTokens: 0 },
        text: '',
        search: undefined,
        loaded: undefined,
      };
    }
    if (this.#owned !== undefined) {
      this.#started ??= this.#owned.start();
      await this.#started;
    }
    if (resumed !== undefined) {
      const pending = nextPending(resumed);
      if (pending !== undefined) {
        yield { type: 'input-required', step: run.steps, pending };
        yield done(run, 'input-required', pending);
        return;
      }
      // The paused calls go on as they were accepted: straight to the tool set, past tool search.
      const { toolset } = this.#toolsFor(run);
      const jobs = resumed.paused.map(({ index, continuation, answers }) => ({
        index,
        resume: {
          inputResponses: { ...continuation.inputResponses, ...answers },
          ...(continuation.requestState === undefined
            ? {}
            : { requestState: continuation.requestState }),
        },
      }));
      const calls = pausedCalls(resumed);
      if (yield* this.#runStep(run, calls, resumed.results, jobs, toolset, signal)) return;
    }
    for (;;) {
      if (signal.aborted) {
        yield done(run, 'aborted');
        return;
      }
      run.steps += 1;
      const step = run.steps;
      yield { type: 'step-start', step };
      const { runner, tools } = this.#toolsFor(run);
      const remaining =
        this.#options.maxTokens === undefined
          ? undefined
          : this.#options.maxTokens - run.usage.inputTokens - run.usage.outputTokens;
      let reply = '';
      const calls: ModelToolCall[] = [];
      try {
        for await (const event of model.stream({
          messages: [...run.messages],
          tools,
          signal,
          ...(remaining === undefined
            ? {}
            : { maxOutputTokens: Math.max(1, Math.floor(remaining)) }),
        })) {
          if (event.type === 'text-delta') {
            reply += event.text;
            yield { type: 'text-delta', step, text: event.text };
          } else if (event.type === 'tool-call') {
            calls.push(event.call);
          } else {
            run.usage.inputTokens += event.usage?.inputTokens ?? 0;
            run.usage.outputTokens += event.usage?.outputTokens ?? 0;
          }
        }
      } catch (error) {
        if (signal.aborted) {
          yield done(run, 'aborted');
          return;
        }
        throw modelError(error, model, step);
      }
      run.text = reply;
      run.messages.push({ role: 'assistant', text: reply, toolCalls: calls });
      if (calls.length === 0) {
        yield done(run, 'final');
        return;
      }
      const overBudget =
        this.#options.maxTokens !== undefined &&
        run.usage.inputTokens + run.usage.outputTokens >= this.#options.maxTokens;
      if (overBudget) {
        run.messages.push(notRun(calls, 'the run reached its token budget'));
        yield done(run, 'budget');
        return;
      }
      const results = calls.map(() => null);
      const jobs = calls.map((_call, index) => ({ index, resume: undefined }));
      if (yield* this.#runStep(run, calls, results, jobs, runner, signal)) return;
    }
  }

  /** This step's tool set, and what the model is offered and its calls run through. */
  #toolsFor(run: RunState): {
    toolset: AgentToolset;
    runner: AgentToolset | ToolSearch;
    tools: readonly AgentTool[];
  } {
    // A fresh tool set each step, so tools that changed since are offered as they are now.
    const toolset = createAgentToolset(this.#source, {
      provider: this.#options.model.provider,
      ...(this.#options.context === undefined ? {} : { context: this.#options.context }),
      ...(this.#options.callTimeoutMs === undefined
        ? {}
        : { timeoutMs: this.#options.callTimeoutMs }),
    });
    const searchOptions = this.#options.toolSearch;
    if (searchOptions === undefined || searchOptions === false)
      return { toolset, runner: toolset, tools: toolset.tools };
    const base = searchOptions === true ? {} : searchOptions;
    const loaded = run.search?.loaded ?? run.loaded;
    run.search = createToolSearch(toolset, {
      ...base,
      ...(loaded === undefined ? {} : { loaded }),
    });
    return { toolset, runner: run.search, tools: run.search.tools() };
  }

  /**
   * Runs the step's calls (`jobs`: all of them, or the paused ones of a resumed step) in
   * parallel, yielding their events, then ends the step: its results go into the conversation.
   * Returns true when the run ended here (a call paused on deferred input, an abort, the step
   * limit), after yielding `done`.
   */
  async *#runStep(
    run: RunState,
    calls: readonly ModelToolCall[],
    results: (ModelToolResult | null)[],
    jobs: readonly { index: number; resume: InputResume | undefined }[],
    runner: AgentToolset | ToolSearch,
    signal: AbortSignal,
  ): AsyncGenerator<AgentEvent, boolean, undefined> {
    const step = run.steps;
    const paused: PausedCall[] = [];
    const pending = new Map<number, Promise<{ index: number; durationMs: number }>>();
    // Every call is under way before any event is yielded: they run in parallel, whatever the
    // caller does between events.
    for (const { index, resume } of jobs) {
      const call = calls[index]!;
      if (index >= this.#maxCalls) {
        results[index] = toModelError(
          new McpHostError(
            'INVALID_ARGUMENT',
            `tool '${call.name}' did not run: at most ${this.#maxCalls} tool calls run per step; call it again in the next step`,
            { tool: call.name },
          ),
        );
        pending.set(index, Promise.resolve({ index, durationMs: 0 }));
        continue;
      }
      const started = performance.now();
      pending.set(
        index,
        runner
          .call(call.name, call.arguments, {
            signal,
            input: this.#input,
            ...(resume === undefined ? {} : { resume }),
          })
          .catch((error: unknown) => {
            if (error instanceof McpHostError && error.code === 'INPUT_DEFERRED') {
              paused.push(pausedCall(index, error));
              return null;
            }
            return toModelError(
              new McpHostError('ABORTED', `tool '${call.name}' was aborted: the run was stopped`, {
                tool: call.name,
                cause: error,
              }),
            );
          })
          .then((result) => {
            results[index] = result;
            return { index, durationMs: performance.now() - started };
          }),
      );
    }
    for (const { index } of jobs) {
      const call = calls[index]!;
      yield { type: 'tool-call-started', step, id: call.id, name: call.name, args: call.arguments };
    }
    while (pending.size > 0) {
      const { index, durationMs } = await Promise.race(pending.values());
      pending.delete(index);
      const call = calls[index]!;
      const result = results[index];
      if (result === null || result === undefined) continue;
      yield { type: 'tool-call-finished', step, id: call.id, name: call.name, result, durationMs };
    }
    if (paused.length > 0 && !signal.aborted) {
      paused.sort((a, b) => a.index - b.index);
      const loaded = run.search?.loaded;
      const state: PausedRun = {
        v: 1,
        messages: run.messages,
        steps: run.steps,
        usage: { ...run.usage },
        text: run.text,
        ...(loaded === undefined ? {} : { loaded: [...loaded] }),
        results,
        paused,
      };
      const next = nextPending(state)!;
      yield { type: 'input-required', step, pending: next };
      yield done(run, 'input-required', next);
      return true;
    }
    run.messages.push({
      role: 'tool',
      results: calls.map((call, index) => ({
        call,
        result:
          results[index] ??
          toModelError(
            new McpHostError('ABORTED', `tool '${call.name}' did not finish: the run was stopped`, {
              tool: call.name,
            }),
          ),
      })),
    });
    if (signal.aborted) {
      yield done(run, 'aborted');
      return true;
    }
    if (run.steps >= this.#maxSteps) {
      yield done(run, 'max-steps');
      return true;
    }
    return false;
  }

  /** Closes the host the agent made (idempotent); a host it was given is left open. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#owned?.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** An agent (see {@link Agent}). Throws `INVALID_ARGUMENT` for bad options. */
export function createAgent(options: AgentOptions): Agent {
  return new Agent(options);
}

function initialMessages(
  input: string | readonly ModelMessage[],
  system: string | undefined,
): ModelMessage[] {
  const value: unknown = input;
  if (typeof value !== 'string' && !Array.isArray(value))
    throw invalid('run takes a prompt or an array of messages');
  const given: ModelMessage[] =
    typeof input === 'string'
      ? [{ role: 'user', parts: [{ type: 'text', text: input }] }]
      : [...input];
  const hasSystem = given.some((message) => message.role === 'system');
  return system === undefined || hasSystem ? given : [{ role: 'system', text: system }, ...given];
}

/** What a run carries from step to step. */
interface RunState {
  messages: ModelMessage[];
  steps: number;
  usage: Required<ModelUsage>;
  /** The last answer's text. */
  text: string;
  search: ToolSearch | undefined;
  /** Tools a resumed run had loaded by tool search. */
  loaded: readonly string[] | undefined;
}

function done(run: RunState, stopReason: AgentStopReason, pending?: AgentPending): AgentEvent {
  const { text, messages, steps } = run;
  const result: AgentResult = { text, messages, steps, usage: { ...run.usage }, stopReason };
  if (pending !== undefined) result.pending = pending;
  return { type: 'done', result };
}

function isResumption(input: AgentInput): input is AgentResumption {
  return typeof input === 'object' && !Array.isArray(input) && input !== null && 'resume' in input;
}

/** A call paused by `INPUT_DEFERRED`, from the error's continuation. */
function pausedCall(index: number, error: McpHostError): PausedCall {
  const continuation = error.details?.continuation as PausedCall['continuation'];
  return {
    index,
    ...(error.serverName === undefined ? {} : { serverName: error.serverName }),
    continuation,
    answers: {},
  };
}

/** A source with no tools, to check options against. */
const NO_TOOLS: ToolSource = {
  tools: () => [],
  callTool: (name) =>
    Promise.reject(new McpHostError('TOOL_NOT_FOUND', `no tool is named '${name}'`)),
};

/** Results for calls that were not run, so the conversation stays well formed. */
function notRun(calls: readonly ModelToolCall[], why: string): ModelMessage {
  return {
    role: 'tool',
    results: calls.map((call) => ({
      call,
      result: toModelError(
        new McpHostError('ABORTED', `tool '${call.name}' did not run: ${why}`, { tool: call.name }),
      ),
    })),
  };
}

/** The model's own typed errors as they are (they name the provider); anything else wrapped. */
function modelError(error: unknown, model: ModelClient, step: number): unknown {
  if (error instanceof McpHostError || error instanceof JsonRpcError) return error;
  const failure = toMcpHostError(error);
  return new McpHostError(
    'INTERNAL',
    `agent: model '${model.model}' (${model.provider}) failed at step ${step}: ${failure.message}`,
    { cause: error, details: { provider: model.provider, model: model.model, step } },
  );
}

function invalid(message: string): McpHostError {
  return new McpHostError('INVALID_ARGUMENT', `agent: ${message}`);
}
