/**
 * An Anthropic Messages model over `fetch`, streaming (`content_block_*`, `message_delta`
 * events; a tool's input assembled from its `input_json_delta`s). Tool results are answered as
 * the `mcp-host/anthropic` adapter does (`tool_result` blocks, images and PDFs as native blocks).
 */
import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { isObject } from '../../protocol/guards.js';
import { partsText } from '../model-result.js';
import {
  anthropicMedia,
  anthropicTool,
  anthropicToolResult,
} from '../anthropic/anthropic-tools.js';
import type {
  ModelClient,
  ModelEvent,
  ModelMessage,
  ModelRequest,
  ModelUsage,
} from './model-client.js';
import {
  joinUrl,
  parsedArguments,
  postSse,
  registerKey,
  systemText,
  streamedError,
  truncatedStream,
  type ModelClientOptions,
  type ModelLabel,
  pushTurn,
} from './model-http.js';

/** How an Anthropic model is reached. */
export interface AnthropicModelOptions extends ModelClientOptions {
  /** `max_tokens` when a request sets none (the API requires one; default 4096). */
  defaultMaxTokens?: number;
  /** The `anthropic-version` header (default `2023-06-01`). */
  version?: string;
}

/** Anthropic's public API, the default base URL. */
export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com/v1';

/** A Messages API model (`stream: true`). */
export function anthropicModel(options: AnthropicModelOptions): ModelClient {
  const { apiKey } = options;
  registerKey(apiKey);
  const label: ModelLabel = { provider: 'anthropic', model: options.model };
  const url = joinUrl(options.baseUrl ?? ANTHROPIC_BASE_URL, 'messages');
  return {
    provider: 'anthropic',
    model: options.model,
    async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
      const system = systemText(request.messages);
      const body = {
        model: options.model,
        max_tokens: request.maxOutputTokens ?? options.defaultMaxTokens ?? 4096,
        ...(system === '' ? {} : { system }),
        messages: anthropicMessages(request.messages),
        ...(request.tools.length === 0 ? {} : { tools: request.tools.map(anthropicTool) }),
        stream: true,
      };
      const headers: Record<string, string> = {
        'anthropic-version': options.version ?? '2023-06-01',
        ...(apiKey === undefined || apiKey === '' ? {} : { 'x-api-key': apiKey }),
      };
      const blocks = new Map<number, { id: string; name: string; json: string }>();
      let usage: ModelUsage = {};
      let stop: string | undefined;
      for await (const { event, data } of postSse(
        label,
        options,
        url,
        headers,
        body,
        request.signal,
      )) {
        if (!isObject(data)) continue;
        const type = typeof data.type === 'string' ? data.type : event;
        switch (type) {
          case 'message_start': {
            const message = isObject(data.message) ? data.message : {};
            usage = { ...usage, ...usageOf(message.usage) };
            break;
          }
          case 'content_block_start': {
            const block = isObject(data.content_block) ? data.content_block : {};
            if (block.type === 'tool_use' && typeof data.index === 'number') {
              blocks.set(data.index, {
                id: typeof block.id === 'string' ? block.id : `toolu_${data.index}`,
                name: typeof block.name === 'string' ? block.name : '',
                json: '',
              });
            } else if (
              block.type === 'text' &&
              typeof block.text === 'string' &&
              block.text !== ''
            ) {
              yield { type: 'text-delta', text: block.text };
            }
            break;
          }
          case 'content_block_delta': {
            const delta = isObject(data.delta) ? data.delta : {};
            if (
              delta.type === 'text_delta' &&
              typeof delta.text === 'string' &&
              delta.text !== ''
            ) {
              yield { type: 'text-delta', text: delta.text };
            } else if (
              delta.type === 'input_json_delta' &&
              typeof delta.partial_json === 'string'
            ) {
              const block = typeof data.index === 'number' ? blocks.get(data.index) : undefined;
              if (block !== undefined) block.json += delta.partial_json;
            }
            break;
          }
          case 'content_block_stop': {
            const block = typeof data.index === 'number' ? blocks.get(data.index) : undefined;
            if (block !== undefined) {
              yield {
                type: 'tool-call',
                call: { id: block.id, name: block.name, arguments: parsedArguments(block.json) },
              };
            }
            break;
          }
          case 'message_delta': {
            const delta = isObject(data.delta) ? data.delta : {};
            if (typeof delta.stop_reason === 'string') stop = delta.stop_reason;
            usage = { ...usage, ...usageOf(data.usage) };
            break;
          }
          case 'message_stop':
            yield {
              type: 'done',
              stopReason: stopReason(stop),
              ...(Object.keys(usage).length === 0 ? {} : { usage }),
            };
            return;
          case 'error':
            throw streamedError(label, data);
          case undefined:
          default:
            break;
        }
      }
      throw truncatedStream(label);
    },
  };
}

function stopReason(stop: string | undefined): 'stop' | 'tool-calls' | 'length' | 'other' {
  switch (stop) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
      return 'length';
    case undefined:
    default:
      return 'other';
  }
}

function usageOf(usage: unknown): ModelUsage {
  if (!isObject(usage)) return {};
  return {
    ...(typeof usage.input_tokens === 'number' ? { inputTokens: usage.input_tokens } : {}),
    ...(typeof usage.output_tokens === 'number' ? { outputTokens: usage.output_tokens } : {}),
  };
}

/** The conversation (less its system text) as Messages, consecutive same-role turns merged. */
function anthropicMessages(messages: readonly ModelMessage[]): MessageParam[] {
  const turns: Array<{ role: 'user' | 'assistant'; items: ContentBlockParam[] }> = [];
  const push = (role: 'user' | 'assistant', content: ContentBlockParam[]): void =>
    pushTurn(turns, role, content);
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        push(
          'user',
          message.parts.flatMap((part): ContentBlockParam[] => {
            const media = anthropicMedia(part);
            // Images and PDFs only: both are user content blocks too.
            if (media !== undefined) return [media as ContentBlockParam];
            const text = partsText([part]);
            return text === '' ? [] : [{ type: 'text', text }];
          }),
        );
        break;
      case 'assistant':
        push('assistant', [
          ...(message.text === '' ? [] : [{ type: 'text' as const, text: message.text }]),
          ...message.toolCalls.map((call) => ({
            type: 'tool_use' as const,
            id: call.id,
            name: call.name,
            input: inputObject(call.arguments),
          })),
        ]);
        break;
      case 'tool':
        push(
          'user',
          message.results.map(({ call, result }) => anthropicToolResult(call.id, result)),
        );
        break;
    }
  }
  return turns.map(({ role, items }) => ({ role, content: items }));
}

/** Arguments as the object `tool_use.input` must be (JSON text parsed; anything else `{}`). */
function inputObject(args: unknown): Record<string, unknown> {
  const value = typeof args === 'string' ? parsedArguments(args) : args;
  return isObject(value) ? value : {};
}
