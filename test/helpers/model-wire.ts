/**
 * Scripted replies in the OpenAI Chat Completions, Anthropic Messages and Gemini stream formats
 * (the providers' real server-sent event shapes), for the fake model server: a streamed text
 * answer, and a reply that calls tools. The model client tests, the agent loop's end-to-end tests
 * and the `agent` command's share them.
 */
import type { ModelRequest, SseReply } from './fake-model-server.js';

/** Token counts a scripted reply reports. */
export interface WireUsage {
  input: number;
  output: number;
}

type SseEvent = SseReply['sse'][number];

function anthropicEvent(data: { type: string } & Record<string, unknown>): SseEvent {
  return { event: data.type, data };
}

/** An Anthropic reply: `message_start`, the `content`, `message_delta`, `message_stop`. */
function anthropicReply(
  start: Record<string, number>,
  content: readonly SseEvent[],
  stopReason: string,
  usage: WireUsage,
): SseReply {
  return {
    sse: [
      anthropicEvent({ type: 'message_start', message: { usage: start } }),
      ...content,
      anthropicEvent({
        type: 'message_delta',
        delta: { stop_reason: stopReason },
        usage: { output_tokens: usage.output },
      }),
      anthropicEvent({ type: 'message_stop' }),
    ],
  };
}

/** A content block: `content_block_start`, a `content_block_delta` per delta, the block's stop. */
function anthropicBlock(
  index: number,
  block: Record<string, unknown>,
  deltas: ReadonlyArray<Record<string, unknown>>,
): SseEvent[] {
  return [
    anthropicEvent({ type: 'content_block_start', index, content_block: block }),
    ...deltas.map((delta) => anthropicEvent({ type: 'content_block_delta', index, delta })),
    anthropicEvent({ type: 'content_block_stop', index }),
  ];
}

/**
 * An Anthropic text answer: `message_start` (a `ping` after it, as the API sends), one text block
 * streamed in `deltas`, then `message_delta` with `end_turn` and `message_stop`.
 */
export function anthropicText(
  deltas: readonly string[],
  usage: WireUsage = { input: 11, output: 2 },
): SseReply {
  const text = deltas.map((delta) => ({ type: 'text_delta', text: delta }));
  return anthropicReply(
    { input_tokens: usage.input, output_tokens: 1 },
    [anthropicEvent({ type: 'ping' }), ...anthropicBlock(0, { type: 'text', text: '' }, text)],
    'end_turn',
    usage,
  );
}

/** One `tool_use` block: its input JSON streamed in `json` pieces (`input_json_delta`s). */
export interface AnthropicToolUse {
  id: string;
  name: string;
  json: readonly string[];
}

/** An Anthropic reply that calls tools: one `tool_use` block each, then `tool_use` as the stop. */
export function anthropicToolUses(
  uses: readonly AnthropicToolUse[],
  usage: WireUsage = { input: 5, output: 9 },
): SseReply {
  const blocks = uses.flatMap(({ id, name, json }, index) =>
    anthropicBlock(
      index,
      { type: 'tool_use', id, name, input: {} },
      json.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
    ),
  );
  return anthropicReply({ input_tokens: usage.input }, blocks, 'tool_use', usage);
}

function geminiChunk(
  parts: readonly unknown[],
  last: boolean,
  usage: WireUsage | undefined,
): SseEvent {
  return {
    data: {
      candidates: [
        { content: { role: 'model', parts }, ...(last ? { finishReason: 'STOP' } : {}) },
      ],
      ...(last && usage !== undefined
        ? { usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output } }
        : {}),
    },
  };
}

/** A Gemini text answer: one chunk per delta, the last with `STOP` and the usage. */
export function geminiText(
  deltas: readonly string[],
  usage: WireUsage = { input: 11, output: 2 },
): SseReply {
  return {
    sse: deltas.map((text, index) => geminiChunk([{ text }], index === deltas.length - 1, usage)),
  };
}

/** One `functionCall` part (`id` only where the API sends one; a `thoughtSignature` beside it). */
export interface GeminiFunctionCall {
  name: string;
  args: Record<string, unknown>;
  id?: string;
  thoughtSignature?: string;
}

/** A Gemini reply that calls functions: one chunk per call, the last with `STOP`. */
export function geminiFunctionCalls(
  calls: readonly GeminiFunctionCall[],
  usage?: WireUsage,
): SseReply {
  return {
    sse: calls.map(({ name, args, id, thoughtSignature }, index) =>
      geminiChunk(
        [
          {
            functionCall: { name, args, ...(id === undefined ? {} : { id }) },
            ...(thoughtSignature === undefined ? {} : { thoughtSignature }),
          },
        ],
        index === calls.length - 1,
        usage,
      ),
    ),
  };
}

/** One Chat Completions stream chunk. */
export function chatChunk(delta: Record<string, unknown>, finish?: string): SseEvent {
  return {
    data: {
      choices: [{ index: 0, delta, ...(finish === undefined ? {} : { finish_reason: finish }) }],
    },
  };
}

/** A streamed Chat Completions reply that calls `name` with `args`. */
export function chatCall(name: string, args: unknown): SseReply {
  const call = {
    index: 0,
    id: 'call_1',
    type: 'function',
    function: { name, arguments: JSON.stringify(args) },
  };
  return {
    sse: [
      chatChunk({ role: 'assistant', tool_calls: [call] }),
      chatChunk({}, 'tool_calls'),
      { data: '[DONE]' },
    ],
  };
}

/** A streamed Chat Completions final answer. */
export function chatText(text: string): SseReply {
  return {
    sse: [
      chatChunk({ role: 'assistant', content: text }),
      chatChunk({}, 'stop'),
      { data: '[DONE]' },
    ],
  };
}

/** The content of a Chat Completions request's last `tool` message. */
export function chatToolMessage(request: ModelRequest): string {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const last = messages.filter((message) => message.role === 'tool').at(-1);
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? null);
}
