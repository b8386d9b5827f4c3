/**
 * `mcp-host/agent`: a small agent of our own. `agent()` builds one (a model, MCP servers or a
 * host, native tools, limits); `run` answers a prompt, calling tools in parallel through the host;
 * `stream` yields its events for a UI. Models are `ModelClient`s: the clients here, over `fetch`
 * with no SDK and streaming (OpenAI-compatible Chat Completions (OpenAI, llama.cpp, Ollama, ...)
 * and Responses, Anthropic Messages, Gemini), `createModel` to pick one from a spec such as
 * `anthropic:<model>` or an `http://` URL, or your own.
 */
export { Agent, DEFAULT_AGENT_OPTIONS, createAgent } from './agents/loop/agent.js';
export type {
  AgentEvent,
  AgentInput,
  AgentOptions,
  AgentResult,
  AgentResumption,
  AgentRunOptions,
  AgentStopReason,
} from './agents/loop/agent.js';
export type { AgentPending } from './agents/loop/agent-continuation.js';
export { DEFAULT_SAMPLING_LIMITS } from './agents/loop/agent-input.js';
export type {
  AgentElicitation,
  AgentElicitationHandler,
  AgentSamplingOptions,
  SamplingRequest,
} from './agents/loop/agent-input.js';
export { AgentBuilder, agent } from './agents/loop/agent-builder.js';
export type { StdioServerOptions } from './agents/loop/agent-builder.js';
export type {
  ModelClient,
  ModelEvent,
  ModelMessage,
  ModelRequest,
  ModelToolCall,
  ModelUsage,
} from './agents/models/model-client.js';
export type { ModelClientOptions } from './agents/models/model-http.js';
export { openaiChatModel, type OpenAIModelOptions } from './agents/models/openai-chat-model.js';
export { openaiResponsesModel } from './agents/models/openai-responses-model.js';
export { anthropicModel, type AnthropicModelOptions } from './agents/models/anthropic-model.js';
export { geminiModel } from './agents/models/gemini-model.js';
export { createModel, type CreateModelOptions } from './agents/models/create-model.js';
