/**
 * What `mcp-host agent` answers when a server asks: on a terminal, the person is asked (a
 * question field by field, a sampling request yes or no); `--allow-sampling` allows sampling
 * without asking. Elsewhere nobody can answer, so a modern server's question pauses the run and
 * `--resume <file> --answer <json>` goes on with it later (the file is what the paused run printed).
 */
import { readFileSync } from 'node:fs';
import type { AgentOptions, AgentResumption } from '../../agents/loop/agent.js';
import type { AgentPending } from '../../agents/loop/agent-continuation.js';
import { MASK, redact } from '../../errors/redact.js';
import { isObject } from '../../protocol/guards.js';
import type {
  CreateMessageRequestParams,
  ElicitRequestParams,
  ElicitResult,
} from '../../protocol/types.js';
import { promptElicitation } from './elicitation-prompt.js';
import { CliError, usageError } from '../exit-codes.js';
import type { Output } from '../output.js';
import { readStdin } from '../tool-arguments.js';

/** Asks a person on the terminal (stdin and stderr), or undefined when there is none. */
export type Ask = (
  serverName: string | undefined,
  params: ElicitRequestParams,
) => Promise<ElicitResult>;

/** The terminal's person, when stdin and stderr are terminals and the output is for a person. */
export function terminalAsk(output: Output): Ask | undefined {
  if (output.json || !output.interactive || process.stdin.isTTY !== true) return undefined;
  return (serverName, params) => {
    output.clearProgress();
    return promptElicitation(serverName, params, { input: process.stdin, output: process.stderr });
  };
}

/** The agent's `sampling` and `elicitation` for this command. */
export function answersOf(
  ask: Ask | undefined,
  allowSampling: boolean,
): Pick<AgentOptions, 'sampling' | 'elicitation'> {
  const answers: Pick<AgentOptions, 'sampling' | 'elicitation'> = {};
  if (allowSampling) answers.sampling = { approve: () => true };
  else if (ask !== undefined)
    answers.sampling = {
      approve: async ({ serverName, params }) => {
        const answer = await ask(serverName, samplingQuestion(params));
        return answer.action === 'accept' && answer.content?.allow === true;
      },
    };
  if (ask !== undefined) answers.elicitation = (request) => ask(request.serverName, request.params);
  return answers;
}

/** A sampling request as a yes/no question for a person. */
function samplingQuestion(params: CreateMessageRequestParams): ElicitRequestParams {
  const first = params.messages.find((message) => message.role === 'user')?.content;
  const text = isObject(first) && typeof first.text === 'string' ? first.text : '';
  const quoted = text === '' ? '' : `: "${text.length > 200 ? `${text.slice(0, 200)}…` : text}"`;
  return {
    message: `wants the model to answer (up to ${params.maxTokens} tokens)${quoted}`,
    requestedSchema: {
      type: 'object',
      properties: { allow: { type: 'boolean', title: 'Allow' } },
      required: ['allow'],
    },
  };
}

/**
 * The paused run of `--resume <file>` ('-': stdin) with its answer: `--answer <json>` (an
 * `ElicitResult`, or the form's content alone, which accepts), else asked on the terminal.
 */
export async function readResumption(
  file: string,
  answer: string | undefined,
  ask: Ask | undefined,
): Promise<AgentResumption> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError('INVALID_ARGUMENT', `--resume: cannot read '${file}'`, { cause: error });
  }
  const pending = pendingIn(text);
  if (pending === undefined)
    throw usageError(
      `--resume: '${file}' holds no paused run (the {"pending": ...} a paused 'mcp-host agent' printed)`,
    );
  if (answer !== undefined) return { resume: pending, answer: parseAnswer(answer) };
  if (ask === undefined || pending.kind !== 'elicitation')
    throw usageError(
      '--resume needs --answer \'<json>\' here (no terminal to ask on): an ElicitResult such as {"action":"accept","content":{...}}, or the content alone',
    );
  return {
    resume: pending,
    answer: await ask(pending.serverName, pending.request as ElicitRequestParams),
  };
}

/** The pending of a paused run's output: `{ pending }`, a `{ result }` line, or NDJSON ending in one. */
function pendingIn(text: string): AgentPending | undefined {
  for (const line of [text, ...text.trim().split('\n').reverse()]) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const holder = isObject(value) && isObject(value.result) ? value.result : value;
    if (isObject(holder) && isObject(holder.pending))
      return holder.pending as unknown as AgentPending;
  }
  return undefined;
}

function parseAnswer(text: string): ElicitResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError('INVALID_ARGUMENT', '--answer is not JSON', { cause: error });
  }
  if (!isObject(value)) throw usageError('--answer must be a JSON object');
  if (value.action === 'accept' || value.action === 'decline' || value.action === 'cancel')
    return value as ElicitResult;
  return { action: 'accept', content: value };
}

/**
 * `value` as one redacted JSON line, with the resume token of `pending` kept whole: redaction
 * masks every field named like a token, but this one is no credential (it holds the run's state,
 * as base64url JSON) and a masked one resumes nothing.
 */
export function redactedJson(value: unknown, pending: AgentPending | undefined): string {
  const text = redact(JSON.stringify(value));
  if (pending === undefined) return text;
  return text
    .split(`"resumeToken":"${MASK}"`)
    .join(`"resumeToken":${JSON.stringify(pending.resumeToken)}`);
}
