/**
 * What the agent loop asks of a model, whatever the provider: a conversation in, a stream of
 * events out. Each client (OpenAI-compatible Chat Completions and Responses, Anthropic Messages,
 * Gemini) maps these types to its wire format over `fetch`, streaming included, and back.
 */
import type { AgentTool } from '../agent-toolset.js';
import type { ModelResultPart, ModelToolResult } from '../model-result.js';
import type { SchemaProvider } from '../schemas/normalise-tool-schema.js';

/** A call the model made: its id (the provider's, or one made up when it gives none). */
export interface ModelToolCall {
  id: string;
  /** The tool's exposed name. */
  name: string;
  /** The arguments as the model sent them: JSON text (as most providers send it) or an object. */
  arguments: unknown;
  /**
   * What the provider needs back with this call on the next turn (Gemini's `thoughtSignature`
   * and its own call id, when it sent one). Pass it on unchanged with the assistant message.
   */
  metadata?: Readonly<Record<string, unknown>>;
}

/** One message of the conversation, provider-neutral. */
export type ModelMessage =
  | { role: 'system'; text: string }
  | { role: 'user'; parts: ModelResultPart[] }
  | { role: 'assistant'; text: string; toolCalls: ModelToolCall[] }
  | { role: 'tool'; results: Array<{ call: ModelToolCall; result: ModelToolResult }> };

/** One request to the model. */
export interface ModelRequest {
  messages: readonly ModelMessage[];
  /** The tools offered this turn (each schema already in the client's provider form). */
  tools: readonly AgentTool[];
  signal?: AbortSignal;
  /** Upper bound on the reply's tokens, where the provider has one. */
  maxOutputTokens?: number;
}

/** Token counts of one reply, as the provider reports them. */
export interface ModelUsage {
  inputTokens?: number;
  outputTokens?: number;
}

/** What a model sends back, as it arrives. */
export type ModelEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call'; call: ModelToolCall }
  | {
      type: 'done';
      /** `tool-calls`: it wants its calls run; `stop`: a final answer; `length`: cut at the limit. */
      stopReason: 'stop' | 'tool-calls' | 'length' | 'other';
      usage?: ModelUsage;
    };

/** A model behind one provider's API. */
export interface ModelClient {
  /** Whose schema rules the tools it is given must follow. */
  readonly provider: SchemaProvider;
  /** The model's name, as the provider knows it. */
  readonly model: string;
  /**
   * Sends the request and yields the reply's events: text deltas, each tool call once complete,
   * then exactly one `done`. Failures (HTTP errors, a refused key, a malformed stream, `signal`)
   * are thrown as typed errors naming the provider, model and what went wrong.
   */
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}
