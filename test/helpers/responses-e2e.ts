/**
 * What the AI SDK and Mastra end-to-end tests share: an McpHost over the official everything
 * server (stdio), and the OpenAI Responses API's wire format for the fake model server (replies
 * with function calls or a message; the `function_call_output` items of a request).
 */
import { createRequire } from 'node:module';
import { McpHost, type ContentBlock, type McpHostOptions } from '../../src/index.js';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** server-everything's tools as the host exposes them. */
export const EVERYTHING = {
  echo: 'mcp__everything__echo',
  image: 'mcp__everything__get-tiny-image',
  env: 'mcp__everything__get-env',
  longRunning: 'mcp__everything__trigger-long-running-operation',
} as const;

/** A started host over server-everything (stdio); disposing closes it. */
export async function everythingHost(
  options: McpHostOptions = {},
): Promise<McpHost & AsyncDisposable> {
  const host = new McpHost({
    health: { intervalMs: 0 },
    ...options,
    servers: [
      {
        name: 'everything',
        transport: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'] },
      },
    ],
  });
  try {
    await host.start();
  } catch (error) {
    await host.close();
    throw error;
  }
  return Object.assign(host, { [Symbol.asyncDispose]: () => host.close() });
}

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
