/**
 * `mcp-host agent "<prompt>" --model <provider:model> [--base-url <url>]`: runs the agent loop of
 * `mcp-host/agent` on one prompt, with the config's servers (or a view's) as its tools, and prints
 * its final answer on stdout. The model is resolved, and a missing key refused, before any server
 * starts. On a terminal each tool call shows on stderr as it starts and finishes (so does
 * `--verbose` elsewhere); piped, stderr carries only problems. With `--format json`, stdout is
 * NDJSON: one line per event (agent-events.ts), then one `{"result": ...}` line. Exit 0 on a
 * final answer, 6 when the step limit or the token budget ended the run first; SIGINT aborts the
 * run (the model request and the calls in flight), prints what it has, then closes the servers.
 */
import {
  createAgent,
  type Agent,
  type AgentEvent,
  type AgentResult,
  type AgentResumption,
} from '../../agents/loop/agent.js';
import type { ServerInputContext, ServerInputHandlers } from '../../client/client-options.js';
import { JsonRpcError } from '../../errors/json-rpc-error.js';
import type { ElicitRequestParams } from '../../protocol/types.js';
import {
  answersOf,
  readResumption,
  redactedJson,
  terminalAsk,
  type Ask,
} from '../agent/agent-answers.js';
import { createModel } from '../../agents/models/create-model.js';
import type { ModelClient } from '../../agents/models/model-client.js';
import { redact } from '../../errors/redact.js';
import type { McpHost } from '../../host/mcp-host.js';
import {
  agentEventJson,
  formatAgentEvent,
  formatDuration,
  type ToolLabel,
} from '../agent/agent-events.js';
import { CliError, ExitCode, usageError } from '../exit-codes.js';
import { serverDownError, type CliRuntime } from '../runtime.js';
import { readStdin } from '../tool-arguments.js';
import { viewServers } from './tools.js';

/** Options of `mcp-host agent`. */
export interface AgentCommandOptions {
  model?: string;
  baseUrl?: string;
  view?: string;
  system?: string;
  maxSteps?: number;
  maxTokens?: number;
  toolSearch?: boolean;
  /** A paused run to go on with: the file its `{ pending }` was printed to ('-': stdin). */
  resume?: string;
  /** The answer to the paused run's question (JSON). */
  answer?: string;
  /** Answer servers' sampling requests without asking. */
  allowSampling?: boolean;
}

/** How long an interrupted run may take to end before its servers are closed anyway. */
const ABORT_GRACE_MS = 5_000;

/** The providers `createModel` knows, so `--base-url` can tell a spec from a model's name. */
const PROVIDER_SPEC = /^(?:openai|openai-responses|anthropic|gemini):/;

/**
 * The model of `--model` and `--base-url`. A provider spec keeps its provider (the base URL then
 * replaces the provider's, and the key is optional); with a base URL, anything else names the
 * model of that OpenAI-compatible server (`llama3.2:latest` too), which gets no key; a base URL
 * alone is its `default` model. Neither is a usage error saying what to give.
 */
export function modelOf(
  options: Pick<AgentCommandOptions, 'model' | 'baseUrl'>,
  env: Readonly<Record<string, string | undefined>>,
): ModelClient {
  const { model, baseUrl } = options;
  if (model === undefined && baseUrl === undefined)
    throw usageError(
      'which model? give --model <provider:model> (openai:, openai-responses:, anthropic:, gemini:; the key from OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY) or --base-url <url> of an OpenAI-compatible server',
    );
  if (baseUrl === undefined) return createModel(model!, { env });
  if (model === undefined || /^https?:\/\//i.test(model) || PROVIDER_SPEC.test(model))
    return createModel(model ?? baseUrl, { env, baseUrl });
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (error) {
    throw new CliError('INVALID_ARGUMENT', `--base-url '${baseUrl}' is not a valid URL`, {
      cause: error,
    });
  }
  url.hash = encodeURIComponent(model);
  return createModel(url.href, { env });
}

export async function runAgent(
  cli: CliRuntime,
  prompt: string | undefined,
  options: AgentCommandOptions,
): Promise<ExitCode> {
  // Everything that can be refused is, before any server starts or any request is sent.
  const model = modelOf(options, cli.env);
  const ask = terminalAsk(cli.output);
  const input = await runInput(prompt, options, ask);
  const answers = answersOf(ask, options.allowSampling === true);
  // Legacy servers ask on their own, not inside a call: their requests reach the agent too.
  const made: { agent?: Agent } = {};
  const handlers: ServerInputHandlers = {};
  if (answers.sampling !== undefined)
    handlers.sampling = (params, context) =>
      notReady(made.agent?.serverInput.sampling)(params, context);
  if (answers.elicitation !== undefined) {
    const form = (params: ElicitRequestParams, context: ServerInputContext) =>
      notReady(made.agent?.serverInput.elicitation?.form)(params, context);
    handlers.elicitation = { form, url: form };
  }
  const wanted = await viewServers(cli, options.view, undefined);
  const opened = await cli.openHost({
    ...(wanted === undefined ? {} : { servers: wanted }),
    handlers,
  });
  const { host, statuses } = opened;
  // The servers that did not come up: one line each; the agent runs with the others' tools.
  for (const status of statuses) {
    const down = serverDownError(status);
    if (down !== undefined && status.state !== 'disabled') cli.output.warn(down.message);
  }
  cli.reportUnresolved(opened);

  const bot = createAgent({
    model,
    host,
    ...answers,
    ...(options.view === undefined ? {} : { view: options.view }),
    ...(options.system === undefined ? {} : { system: options.system }),
    ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    ...(options.toolSearch === true ? { toolSearch: true } : {}),
  });
  made.agent = bot;
  // SIGINT/SIGTERM close the run (command.ts): the run is aborted first, and its end awaited, so
  // what it has is printed before the servers close (cleanups run last in, first out).
  const controller = new AbortController();
  let ended: Promise<unknown> = Promise.resolve();
  cli.onClose(async () => {
    controller.abort(new CliError('ABORTED', 'interrupted'));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      ended,
      new Promise((resolve) => (timer = setTimeout(resolve, ABORT_GRACE_MS).unref())),
    ]);
    clearTimeout(timer);
  });
  const show = new RunReport(cli, host, model);
  const run = (async (): Promise<AgentResult | undefined> => {
    for await (const event of bot.stream(input, { signal: controller.signal })) {
      if (event.type === 'done') return event.result;
      show.event(event);
    }
    return undefined;
  })();
  ended = run.catch(() => {});
  const result = await run;
  if (result === undefined) throw new CliError('INTERNAL', 'agent: the run ended without a result');
  return show.result(result, options);
}

/** The prompt (`-`: from stdin), or the paused run of `--resume` with its answer. */
async function runInput(
  prompt: string | undefined,
  options: AgentCommandOptions,
  ask: Ask | undefined,
): Promise<string | AgentResumption> {
  if (options.resume !== undefined) {
    if (prompt !== undefined) throw usageError('give a prompt or --resume, not both');
    return readResumption(options.resume, options.answer, ask);
  }
  if (options.answer !== undefined) throw usageError('--answer goes with --resume <file>');
  if (prompt === undefined)
    throw usageError('give a prompt, or --resume <file> to go on with a paused run');
  const text = prompt === '-' ? await readStdin() : prompt;
  if (text.trim() === '') throw usageError('the prompt is empty');
  return text;
}

/** A handler of the agent, or one that says the agent is not there yet (a server asking early). */
function notReady<T extends (...args: never[]) => Promise<unknown>>(handler: T | undefined): T {
  if (handler !== undefined) return handler;
  return (() =>
    Promise.reject(
      new JsonRpcError(-32603, 'the agent is not ready yet: ask again once a call is under way'),
    )) as unknown as T;
}

/** What the run shows as it goes, and at its end (see the module comment). */
class RunReport {
  readonly #cli: CliRuntime;
  readonly #model: ModelClient;
  readonly #label: ToolLabel;
  /** Tool calls are shown on stderr: on a terminal, or with --verbose (never with --quiet). */
  readonly #verbose: boolean;
  readonly #started = performance.now();
  #calls = 0;
  #stepText = '';

  constructor(cli: CliRuntime, host: McpHost, model: ModelClient) {
    this.#cli = cli;
    this.#model = model;
    this.#verbose =
      !cli.output.json && !cli.output.quiet && (cli.output.interactive || cli.output.verbose);
    this.#label = (name) => {
      const tool = host.tools().find((t) => t.name === name);
      return tool?.server === undefined
        ? { tool: name }
        : { server: tool.server, tool: tool.originalName };
    };
  }

  event(event: Exclude<AgentEvent, { type: 'done' }>): void {
    const out = this.#cli.output;
    if (out.json) {
      const json = agentEventJson(event, this.#label);
      if (json !== undefined)
        out.line(redactedJson(json, json.type === 'input-required' ? json.pending : undefined));
      return;
    }
    if (event.type === 'step-start') {
      this.#stepText = '';
      out.progress(`step ${event.step}: asking ${this.#model.model}`);
      return;
    }
    if (event.type === 'text-delta') {
      this.#stepText += event.text;
      out.progress(
        `step ${event.step}: ${this.#model.model} is answering (${this.#stepText.length} characters)`,
      );
      return;
    }
    if (event.type === 'tool-call-started') {
      this.#calls += 1;
      // What the model said before calling tools is not its answer: shown with the calls.
      if (this.#verbose && this.#stepText.trim() !== '')
        out.report(out.styleErr('dim', redact(this.#stepText.trim())));
      this.#stepText = '';
    }
    const line = formatAgentEvent(event, this.#label, (style, text) => out.styleErr(style, text));
    if (line !== undefined && this.#verbose) out.report(redact(line));
    if (event.type === 'tool-call-started' || event.type === 'tool-call-finished')
      out.progress(`step ${event.step}: running tools`);
  }

  result(result: AgentResult, options: AgentCommandOptions): ExitCode {
    const out = this.#cli.output;
    out.clearProgress();
    if (out.json) out.line(redactedJson({ result }, result.pending));
    else if (result.stopReason === 'final') out.line(redact(result.text));
    if (this.#verbose) {
      const tokens = result.usage.inputTokens + result.usage.outputTokens;
      out.report(
        out.styleErr(
          'dim',
          `${result.stopReason} after ${result.steps} ${result.steps === 1 ? 'step' : 'steps'}, ${this.#calls} tool ${this.#calls === 1 ? 'call' : 'calls'}, ${tokens} tokens, ${formatDuration(performance.now() - this.#started)}`,
        ),
      );
    }
    switch (result.stopReason) {
      case 'final':
        return ExitCode.ok;
      case 'max-steps':
        if (!out.json)
          out.warn(
            `no final answer: the agent stopped at its step limit (${result.steps} model calls); --max-steps raises it`,
          );
        return ExitCode.noAnswer;
      case 'budget':
        if (!out.json)
          out.warn(
            `no final answer: the agent spent its token budget (${options.maxTokens ?? '?'} tokens); --max-tokens raises it`,
          );
        return ExitCode.noAnswer;
      case 'aborted':
        if (!out.json) out.notice('interrupted: the run was stopped');
        return ExitCode.noAnswer;
      case 'input-required': {
        // Nobody here can answer: the paused run, for `--resume` (stdout, as plain JSON).
        if (out.json) return ExitCode.authRequired;
        out.line(redactedJson({ pending: result.pending }, result.pending));
        const asker = result.pending?.serverName ?? 'a server';
        out.warn(
          `paused: ${asker} asks a question (see "request" in the JSON above); save that JSON and go on with: mcp-host agent --resume <file> --answer '{"action":"accept","content":{...}}'`,
        );
        return ExitCode.authRequired;
      }
    }
  }
}
