/**
 * An OpenAI-compatible Chat Completions model over `fetch`, streaming: OpenAI itself, or any
 * server that speaks the same API (llama.cpp, Ollama, vLLM, a gateway). Tool-call deltas are
 * assembled by their index; tool results are answered as the `mcp-host/openai` adapter does
 * (a tool message, then one user message with the media).
 */
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { SchemaProvider } from '../schemas/normalise-tool-schema.js';
import { isObject } from '../../protocol/guards.js';
import { partsText, type ModelResultPart } from '../model-result.js';
import { chatAnswer, chatMedia, chatMessages, chatTool } from '../openai/openai-chat-tools.js';
import type { ModelClient, ModelEvent, ModelMessage, ModelRequest } from './model-client.js';
import {
  joinUrl,
  parsedArguments,
  postSse,
  registerKey,
  streamedError,
  truncatedStream,
  type ModelClientOptions,
  type ModelLabel,
} from './model-http.js';

/** How an OpenAI-compatible model is reached. */
export interface OpenAIModelOptions extends ModelClientOptions {
  /**
   * Whose schema rules its tools follow: `openai-strict` (default, OpenAI's strict mode) or
   * `openai` (plain JSON Schema, for servers without strict mode).
   */
  schemaProvider?: 'openai-strict' | 'openai';
}

/** OpenAI's public API, the default base URL of both OpenAI clients. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * A Chat Completions model (`stream: true`). With `baseUrl` (a local server such as
 * `http://127.0.0.1:8080/v1`) no key is needed; OpenAI's own API needs `apiKey`.
 */
export function openaiChatModel(options: OpenAIModelOptions): ModelClient {
  const { apiKey } = options;
  registerKey(apiKey);
  const label: ModelLabel = { provider: 'openai-chat', model: options.model };
  const provider: SchemaProvider = options.schemaProvider ?? 'openai-strict';
  const url = joinUrl(options.baseUrl ?? OPENAI_BASE_URL, 'chat/completions');
  // OpenAI's own API wants `max_completion_tokens`; other servers know `max_tokens`.
  const maxField = options.baseUrl === undefined ? 'max_completion_tokens' : 'max_tokens';
  return {
    provider,
    model: options.model,
    async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
      const body = {
        model: options.model,
        messages: chatWireMessages(request.messages),
        ...(request.tools.length === 0 ? {} : { tools: request.tools.map(chatTool) }),
        ...(request.maxOutputTokens === undefined ? {} : { [maxField]: request.maxOutputTokens }),
        stream: true,
        stream_options: { include_usage: true },
      };
      const headers: Record<string, string> =
        apiKey === undefined || apiKey === '' ? {} : { authorization: `Bearer ${apiKey}` };
      const calls = new Map<number, { id: string; name: string; args: string }>();
      let finish: string | undefined;
      let usage: { inputTokens?: number; outputTokens?: number } | undefined;
      let ended = false;
      for await (const { data } of postSse(label, options, url, headers, body, request.signal)) {
        if (data === '[DONE]') {
          ended = true;
          break;
        }
        if (!isObject(data)) continue;
        if (data.error !== undefined) throw streamedError(label, data);
        if (isObject(data.usage)) usage = usageOf(data.usage);
        const choice = Array.isArray(data.choices) ? (data.choices[0] as unknown) : undefined;
        if (!isObject(choice)) continue;
        const delta = isObject(choice.delta) ? choice.delta : {};
        if (typeof delta.content === 'string' && delta.content !== '') {
          yield { type: 'text-delta', text: delta.content };
        }
        if (Array.isArray(delta.tool_calls)) {
          for (const piece of delta.tool_calls as unknown[]) {
            if (!isObject(piece)) continue;
            const index = typeof piece.index === 'number' ? piece.index : calls.size;
            const call = calls.get(index) ?? { id: '', name: '', args: '' };
            calls.set(index, call);
            if (typeof piece.id === 'string' && piece.id !== '') call.id = piece.id;
            const fn = isObject(piece.function) ? piece.function : {};
            if (typeof fn.name === 'string') call.name += fn.name;
            if (typeof fn.arguments === 'string') call.args += fn.arguments;
          }
        }
        if (typeof choice.finish_reason === 'string') finish = choice.finish_reason;
      }
      // A server that ends the body without `[DONE]` after a finish reason still answered whole.
      if (!ended && finish === undefined) throw truncatedStream(label);
      const ordered = [...calls.entries()].sort(([a], [b]) => a - b);
      for (const [index, call] of ordered) {
        yield {
          type: 'tool-call',
          call: {
            id: call.id === '' ? `call_${index}` : call.id,
            name: call.name,
            arguments: parsedArguments(call.args),
          },
        };
      }
      yield {
        type: 'done',
        stopReason:
          calls.size > 0 && (finish === 'stop' || finish === undefined)
            ? 'tool-calls'
            : stopReason(finish),
        ...(usage === undefined ? {} : { usage }),
      };
    },
  };
}

function stopReason(finish: string | undefined): 'stop' | 'tool-calls' | 'length' | 'other' {
  switch (finish) {
    case 'stop':
    case undefined:
      return 'stop';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'length':
      return 'length';
    default:
      return 'other';
  }
}

function usageOf(usage: Record<string, unknown>): { inputTokens?: number; outputTokens?: number } {
  return {
    ...(typeof usage.prompt_tokens === 'number' ? { inputTokens: usage.prompt_tokens } : {}),
    ...(typeof usage.completion_tokens === 'number'
      ? { outputTokens: usage.completion_tokens }
      : {}),
  };
}

/** The conversation as Chat Completions messages. */
function chatWireMessages(messages: readonly ModelMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        out.push({ role: 'system', content: message.text });
        break;
      case 'user':
        out.push({ role: 'user', content: userContent(message.parts) });
        break;
      case 'assistant':
        out.push({
          role: 'assistant',
          content: message.text === '' ? null : message.text,
          ...(message.toolCalls.length === 0
            ? {}
            : {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: argumentsText(call.arguments) },
                })),
              }),
        });
        break;
      case 'tool':
        out.push(
          ...chatMessages(
            message.results.map(({ call, result }) => chatAnswer(call.id, call.name, result)),
          ),
        );
        break;
    }
  }
  return out;
}

/** A user message's parts: one string when all text, else text and media parts. */
function userContent(parts: readonly ModelResultPart[]): string | ChatCompletionContentPart[] {
  if (parts.every((part) => part.type === 'text')) return partsText(parts);
  return parts.flatMap((part): ChatCompletionContentPart[] => {
    const media = chatMedia(part);
    return media.length > 0 ? media : [{ type: 'text', text: partsText([part]) }];
  });
}

/** Arguments as the JSON text Chat Completions and Responses carry. */
export function argumentsText(args: unknown): string {
  if (typeof args === 'string') return args;
  return JSON.stringify(args ?? {});
}
