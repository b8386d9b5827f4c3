/**
 * An OpenAI Responses API model over `fetch`, streaming (`response.*` events). Nothing is stored
 * on the provider's side (`store: false`): each request carries the whole conversation. Tool
 * results are answered as the `mcp-host/openai` adapter does (`function_call_output` items, images
 * and PDFs as native items).
 */
import type { ResponseInputContent, ResponseInputItem } from 'openai/resources/responses/responses';
import { isObject } from '../../protocol/guards.js';
import { partsText } from '../model-result.js';
import { functionTool, responsesMedia, responsesOutput } from '../openai/openai-responses-tools.js';
import type {
  ModelClient,
  ModelEvent,
  ModelMessage,
  ModelRequest,
  ModelUsage,
} from './model-client.js';
import {
  joinUrl,
  modelError,
  parsedArguments,
  postSse,
  providerMessage,
  registerKey,
  streamedError,
  truncatedStream,
  type ModelLabel,
} from './model-http.js';
import { argumentsText, OPENAI_BASE_URL, type OpenAIModelOptions } from './openai-chat-model.js';

/** A Responses API model (`stream: true`, `store: false`). */
export function openaiResponsesModel(options: OpenAIModelOptions): ModelClient {
  const { apiKey } = options;
  registerKey(apiKey);
  const label: ModelLabel = { provider: 'openai-responses', model: options.model };
  const url = joinUrl(options.baseUrl ?? OPENAI_BASE_URL, 'responses');
  return {
    provider: options.schemaProvider ?? 'openai-strict',
    model: options.model,
    async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
      const body = {
        model: options.model,
        input: responsesInput(request.messages),
        ...(request.tools.length === 0 ? {} : { tools: request.tools.map(functionTool) }),
        ...(request.maxOutputTokens === undefined
          ? {}
          : { max_output_tokens: request.maxOutputTokens }),
        store: false,
        stream: true,
      };
      const headers: Record<string, string> =
        apiKey === undefined || apiKey === '' ? {} : { authorization: `Bearer ${apiKey}` };
      let calls = 0;
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
          case 'response.output_text.delta':
            if (typeof data.delta === 'string' && data.delta !== '') {
              yield { type: 'text-delta', text: data.delta };
            }
            break;
          case 'response.output_item.done': {
            const item = data.item;
            if (isObject(item) && item.type === 'function_call') {
              calls++;
              yield {
                type: 'tool-call',
                call: {
                  id: typeof item.call_id === 'string' ? item.call_id : `call_${calls}`,
                  name: typeof item.name === 'string' ? item.name : '',
                  arguments: parsedArguments(
                    typeof item.arguments === 'string' ? item.arguments : '',
                  ),
                },
              };
            }
            break;
          }
          case 'response.completed':
          case 'response.incomplete': {
            const response = isObject(data.response) ? data.response : {};
            const usage = usageOf(response.usage);
            const incomplete = isObject(response.incomplete_details)
              ? response.incomplete_details.reason
              : undefined;
            yield {
              type: 'done',
              stopReason:
                type === 'response.incomplete'
                  ? incomplete === 'max_output_tokens'
                    ? 'length'
                    : 'other'
                  : calls > 0
                    ? 'tool-calls'
                    : 'stop',
              ...(usage === undefined ? {} : { usage }),
            };
            return;
          }
          case 'response.failed': {
            const response = isObject(data.response) ? data.response : {};
            throw modelError(
              label,
              'HTTP_REQUEST_FAILED',
              `the response failed: ${providerMessage(response) ?? 'no reason given'}`,
            );
          }
          case 'error':
            throw streamedError(label, isObject(data.error) ? data : { error: data });
          case undefined:
          default:
            break;
        }
      }
      throw truncatedStream(label);
    },
  };
}

function usageOf(usage: unknown): ModelUsage | undefined {
  if (!isObject(usage)) return undefined;
  return {
    ...(typeof usage.input_tokens === 'number' ? { inputTokens: usage.input_tokens } : {}),
    ...(typeof usage.output_tokens === 'number' ? { outputTokens: usage.output_tokens } : {}),
  };
}

/** The conversation as Responses input items. */
function responsesInput(messages: readonly ModelMessage[]): ResponseInputItem[] {
  const out: ResponseInputItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        out.push({ role: 'system', content: message.text });
        break;
      case 'user':
        out.push({
          role: 'user',
          content: message.parts.map((part): ResponseInputContent => {
            const media = responsesMedia(part);
            if (media?.type === 'input_image') {
              return {
                type: 'input_image' as const,
                image_url: media.image_url ?? null,
                detail: 'auto' as const,
              };
            }
            if (media?.type === 'input_file') {
              return {
                type: 'input_file',
                ...(media.file_data == null ? {} : { file_data: media.file_data }),
                ...(media.filename == null ? {} : { filename: media.filename }),
              };
            }
            return { type: 'input_text' as const, text: partsText([part]) };
          }),
        });
        break;
      case 'assistant':
        if (message.text !== '') out.push({ role: 'assistant', content: message.text });
        for (const call of message.toolCalls) {
          out.push({
            type: 'function_call',
            call_id: call.id,
            name: call.name,
            arguments: argumentsText(call.arguments),
          });
        }
        break;
      case 'tool':
        for (const { call, result } of message.results) {
          out.push({
            type: 'function_call_output',
            call_id: call.id,
            output: responsesOutput(result),
          });
        }
        break;
    }
  }
  return out;
}
