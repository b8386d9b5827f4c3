/**
 * The OpenAI Responses API's wire format for the fake model server, as the AI SDK and Mastra
 * end-to-end tests (and the docs examples) use it: replies with function calls or a message, and
 * the `function_call_output` items of a request.
 */
import type { ContentBlock } from '../../src/index.js';

/** A Responses API reply (not streamed) with these output items. */
export function response(id: string, output: unknown[]): { json: unknown } {
  return {
    json: {
      id,
      object: 'response',
      created_at: 1,
      model: 'fake-model',
      status: 'completed',
      error: null,
      incomplete_details: null,
      output,
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 15,
      },
    },
  };
}

/** A `function_call` output item: the model calls `name` with `args`. */
export function functionCall(callId: string, name: string, args: unknown): unknown {
  return {
    type: 'function_call',
    id: `fc_${callId}`,
    call_id: callId,
    name,
    arguments: JSON.stringify(args),
    status: 'completed',
  };
}

/** A `message` output item: the model answers with `text`. */
export function message(text: string): unknown {
  return {
    type: 'message',
    id: 'msg_1',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
}

/** The `function_call_output` items of a Responses request's `input`, by call id. */
export function functionOutputs(body: Record<string, unknown> | undefined): Map<string, unknown> {
  const input = (body?.input ?? []) as Array<{ type?: string; call_id?: string; output?: unknown }>;
  return new Map(
    input
      .filter((item) => item.type === 'function_call_output')
      .map((item) => [item.call_id ?? '', item.output]),
  );
}

/** The function tools a Responses request offered. */
export function offeredTools(
  body: Record<string, unknown> | undefined,
): Array<{ type?: string; name?: string; description?: string; parameters?: unknown }> {
  return (body?.tools ?? []) as Array<{ name?: string }>;
}

/** A tool result's content as the Responses API's input parts (text and images). */
export function responsesParts(content: readonly ContentBlock[]): unknown[] {
  return content.map((block) =>
    block.type === 'image'
      ? { type: 'input_image', image_url: `data:${block.mimeType};base64,${block.data}` }
      : { type: 'input_text', text: block.type === 'text' ? block.text : '' },
  );
}
