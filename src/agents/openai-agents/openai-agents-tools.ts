/**
 * The host's tools as OpenAI Agents JS function tools (`@openai/agents` 0.20): one `tool()` per
 * tool of an {@link AgentToolset}, with the normalised JSON schema as its parameters and `strict`
 * as the normaliser decided. Results are the SDK's tool output items (text, and images and files
 * as `image` / `file` items the Responses API receives natively); a failed call returns its error
 * text, as the SDK's `errorFunction` does. Thin: every call goes through `toolset.call`, with the
 * run's abort signal.
 */
import { tool } from '@openai/agents';
import type {
  FunctionTool,
  RunContext,
  ToolOutputFileContent,
  ToolOutputImage,
  ToolOutputText,
} from '@openai/agents';
import {
  createAgentToolset,
  type AgentTool,
  type AgentToolset,
  type AgentToolsetOptions,
  type ToolSource,
} from '../agent-toolset.js';
import { partsText, type ModelToolResult } from '../model-result.js';
import type { SchemaProvider } from '../schemas/normalise-tool-schema.js';

/** How {@link openaiAgentsTools} makes its tools. */
export interface OpenAIAgentsToolsOptions extends AgentToolsetOptions {
  /**
   * Whose schema rules the tools follow (default `openai-strict`: each tool whose schema can be
   * made strict is offered with `strict: true`, the others with `strict: false`). Set `openai` to
   * offer every tool non-strict, or the provider behind a non-OpenAI model.
   */
  provider?: SchemaProvider;
}

/** One item of a tool's output, as the Agents SDK takes it. */
export type OpenAIAgentsToolOutput = ToolOutputText | ToolOutputImage | ToolOutputFileContent;

/** What the tools return: the result's text, or its items when it has media. */
type Output = string | OpenAIAgentsToolOutput[];

/** A JSON schema as the SDK types tool parameters (its type is not exported by name). */
type JsonParameters = FunctionTool['parameters'];

type StrictParameters = Extract<JsonParameters, { additionalProperties: false }>;
type NonStrictParameters = Extract<JsonParameters, { additionalProperties: true }>;

/** A function tool made by {@link openaiAgentsTools}. */
export type OpenAIAgentsTool = FunctionTool<unknown, JsonParameters, Output>;

/** The per-call details the SDK passes a tool (its type is not exported by name). */
type CallDetails = Parameters<FunctionTool['invoke']>[2];

/**
 * The tools of `source` (an `McpHost`, or a view of one) as OpenAI Agents JS function tools, for
 * `new Agent({ tools })`. Each keeps the host's exposed name (the SDK's own `tool()` would turn
 * `-` into `_`). A snapshot of the tools: call again to pick up tools that changed.
 */
export function openaiAgentsTools(
  source: ToolSource,
  options: OpenAIAgentsToolsOptions = {},
): OpenAIAgentsTool[] {
  const toolset = createAgentToolset(source, {
    ...options,
    provider: options.provider ?? 'openai-strict',
  });
  return toolset.tools.map((agentTool) => functionTool(toolset, agentTool));
}

function functionTool(toolset: AgentToolset, agentTool: AgentTool): OpenAIAgentsTool {
  const execute = async (
    input: unknown,
    _context?: RunContext<unknown>,
    details?: CallDetails,
  ): Promise<Output> => {
    const signal = details?.signal;
    try {
      return toAgentsOutput(
        await toolset.call(agentTool.name, input, signal === undefined ? {} : { signal }),
      );
    } catch (error) {
      // Only an abort throws; the SDK knows its own cancellation by the signal's reason.
      if (signal?.aborted === true) throw signal.reason;
      throw error;
    }
  };
  const common = {
    name: agentTool.name,
    description: agentTool.description,
    execute,
    // Only a thrown error that is not the tool's (the SDK's own failures) reaches this; the
    // host's refusals and the tool's errors come back from `toolset.call` as results.
    errorFunction: (_context: RunContext<unknown>, error: unknown) =>
      `Error: tool '${agentTool.name}' failed: ${error instanceof Error ? error.message : String(error)}`,
  };
  // The SDK types a strict tool's schema with `additionalProperties: false` and a non-strict one's
  // with `true`; the normaliser made the schema what `strict` says, so each cast states that.
  const nonStrict = (): OpenAIAgentsTool =>
    tool({
      ...common,
      parameters: agentTool.inputSchema as unknown as NonStrictParameters,
      strict: false,
    });
  let created: OpenAIAgentsTool;
  if (toolset.provider === 'openai-strict' && agentTool.strict) {
    try {
      created = tool({
        ...common,
        parameters: agentTool.inputSchema as unknown as StrictParameters,
        strict: true,
      });
    } catch {
      // The SDK checks a strict schema itself and refuses what it cannot use in strict mode:
      // that tool alone is offered non-strict rather than failing the whole set.
      created = nonStrict();
    }
  } else {
    created = nonStrict();
  }
  // The SDK's tool() replaces every character outside [a-zA-Z0-9] with `_`, which could make two
  // exposed names one; the exposed names are already what OpenAI accepts.
  created.name = agentTool.name;
  return created;
}

/**
 * A result as the Agents SDK's tool output: the text when there is nothing but text (or the call
 * failed: the error text, marked `Error:`), else one item per part. Audio has no item type in the
 * SDK, so it is described in text; links are text.
 */
function toAgentsOutput(result: ModelToolResult): Output {
  if (result.isError) {
    return result.error === undefined ? `Error: ${result.text}` : result.text;
  }
  if (result.parts.every((part) => part.type === 'text')) return result.text;
  return result.parts.map((part): OpenAIAgentsToolOutput => {
    switch (part.type) {
      case 'image':
        return { type: 'image', image: { data: part.data, mediaType: part.mimeType } };
      case 'file':
        return {
          type: 'file',
          file: { data: part.data, mediaType: part.mimeType, filename: fileName(part.uri) },
        };
      case 'text':
        return { type: 'text', text: part.text };
      case 'audio':
      case 'link':
        return { type: 'text', text: partsText([part]) };
    }
  });
}

/** The last segment of a resource URI, for a file item's name. */
function fileName(uri: string): string {
  const last = uri
    .split(/[/\\]/)
    .filter((segment) => segment !== '')
    .pop();
  return last === undefined || last.includes(':') ? 'resource' : last;
}
