/**
 * A run paused on input a person must give: what to show them (`AgentPending`) and everything
 * needed to go on later, in another process too, as one opaque `resumeToken`: the conversation,
 * the step's finished results, and for each paused call the server's continuation (its unanswered
 * input requests, the answers given so far, its `requestState`). All plain JSON.
 */
import type { InputContinuation } from '../../client/client-options.js';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { isObject } from '../../protocol/guards.js';
import type { ModelToolResult } from '../model-result.js';
import type { ModelMessage, ModelToolCall, ModelUsage } from '../models/model-client.js';

/** The kinds of input a server asks for, by its request's method. */
const KINDS: Readonly<Record<string, AgentPending['kind']>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/**
 * What a paused run waits for: one question of a server, to show a person. Plain JSON: keep it
 * (`JSON.stringify({ pending })`), and resume with `agent.run({ resume: pending, answer })`, in
 * this process or another, with an agent made with the same options.
 */
export interface AgentPending {
  /** What is asked: `elicitation` (a question for a person; `request` is its form or URL). */
  kind: 'elicitation' | 'sampling' | 'roots';
  /** The server's request params, as it sent them. */
  request: Record<string, unknown>;
  /** The server that asks (its configured name), when known. */
  serverName?: string;
  /** The tool whose call is paused (its exposed name). */
  tool: string;
  /**
   * The run's state (conversation included), opaque: hand it back unchanged. It holds what the
   * model and the tools said, so keep it as you would keep the conversation.
   */
  resumeToken: string;
}

/** One call of the paused step that waits for answers. */
export interface PausedCall {
  /** Its index in the step's calls. */
  index: number;
  serverName?: string;
  continuation: InputContinuation;
  /** Answers given since the pause, by input key. */
  answers: Record<string, unknown>;
}

/** The state of a paused run (what the token holds). */
export interface PausedRun {
  v: 1;
  /** The conversation up to and including the assistant message whose calls are paused. */
  messages: ModelMessage[];
  steps: number;
  usage: Required<ModelUsage>;
  text: string;
  /** Tools loaded by tool search, so a run resumed elsewhere has them loaded too. */
  loaded?: string[];
  /** The step's results, by call index; null for a paused call. */
  results: (ModelToolResult | null)[];
  paused: PausedCall[];
}

/** The calls of the paused step (the last assistant message's). */
export function pausedCalls(run: PausedRun): ModelToolCall[] {
  const last = run.messages.at(-1);
  return last?.role === 'assistant' ? last.toolCalls : [];
}

/** The first question of `run` still unanswered, as a pending for a person; undefined when none. */
export function nextPending(run: PausedRun): AgentPending | undefined {
  const calls = pausedCalls(run);
  for (const call of run.paused) {
    for (const [key, request] of Object.entries(call.continuation.inputRequests)) {
      if (key in call.answers) continue;
      return {
        kind: KINDS[request.method] ?? 'elicitation',
        request: isObject(request.params) ? request.params : {},
        ...(call.serverName === undefined ? {} : { serverName: call.serverName }),
        tool: calls[call.index]?.name ?? '',
        resumeToken: encode(run),
      };
    }
  }
  return undefined;
}

/**
 * The run a pending came from, with `answer` given to its question. Throws `INVALID_ARGUMENT`
 * naming what is wrong when the pending or its token is not one an agent made.
 */
export function answerPending(pending: AgentPending, answer: unknown): PausedRun {
  if (!isObject(pending) || typeof pending.resumeToken !== 'string')
    throw invalid('resume takes the pending of a paused run ({ kind, request, resumeToken })');
  if (!isObject(answer))
    throw invalid(`the answer to a pending ${String(pending.kind)} must be an object`);
  const run = decode(pending.resumeToken);
  for (const call of run.paused) {
    const key = Object.keys(call.continuation.inputRequests).find((k) => !(k in call.answers));
    if (key === undefined) continue;
    call.answers[key] = answer;
    return run;
  }
  throw invalid('resumeToken has no unanswered question');
}

function encode(run: PausedRun): string {
  return Buffer.from(JSON.stringify(run), 'utf8').toString('base64url');
}

function decode(token: string): PausedRun {
  let run: unknown;
  try {
    run = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid('resumeToken is not one an agent made (not base64url JSON)');
  }
  const problem = shapeProblem(run);
  if (problem !== undefined) throw invalid(`resumeToken is not one an agent made: ${problem}`);
  return run as PausedRun;
}

/** What is wrong with a decoded token's shape, or undefined. */
function shapeProblem(run: unknown): string | undefined {
  if (!isObject(run) || run.v !== 1) return 'unknown version';
  if (!Array.isArray(run.messages) || !run.messages.every(isObject)) return 'messages';
  if (!Number.isInteger(run.steps) || (run.steps as number) < 1) return 'steps';
  const usage = run.usage;
  if (
    !isObject(usage) ||
    typeof usage.inputTokens !== 'number' ||
    typeof usage.outputTokens !== 'number'
  )
    return 'usage';
  if (typeof run.text !== 'string') return 'text';
  if (
    run.loaded !== undefined &&
    !(Array.isArray(run.loaded) && run.loaded.every((n) => typeof n === 'string'))
  )
    return 'loaded';
  const calls = pausedCalls(run as unknown as PausedRun);
  if (calls.length === 0) return 'no paused step';
  if (!Array.isArray(run.results) || run.results.length !== calls.length) return 'results';
  if (!Array.isArray(run.paused) || run.paused.length === 0) return 'paused';
  for (const [i, call] of (run.paused as unknown[]).entries()) {
    if (
      !isObject(call) ||
      !Number.isInteger(call.index) ||
      run.results[call.index as number] !== null ||
      !isObject(call.answers) ||
      !isObject(call.continuation) ||
      !isObject(call.continuation.inputRequests) ||
      !isObject(call.continuation.inputResponses) ||
      (call.continuation.requestState !== undefined &&
        typeof call.continuation.requestState !== 'string')
    )
      return `paused[${i}]`;
  }
  return undefined;
}

function invalid(message: string): McpHostError {
  return new McpHostError('INVALID_ARGUMENT', `agent: ${message}`);
}
