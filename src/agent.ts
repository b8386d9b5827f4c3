/**
 * `mcp-host/agent`: a small agent of our own. Model clients over `fetch`, no SDK, streaming:
 * OpenAI-compatible Chat Completions (OpenAI, llama.cpp, Ollama, ...) and Responses, Anthropic
 * Messages and Gemini, each behind one contract (`ModelClient`), and `createModel` to pick one
 * from a spec such as `anthropic:<model>` or an `http://` URL.
 */
export {
  type ModelClient,
  type ModelEvent,
  type ModelMessage,
  type ModelRequest,
  type ModelToolCall,
  type ModelUsage,
} from './agents/models/model-client.js';
export { type ModelClientOptions } from './agents/models/model-http.js';
export { openaiChatModel, type OpenAIModelOptions } from './agents/models/openai-chat-model.js';
export { openaiResponsesModel } from './agents/models/openai-responses-model.js';
export { anthropicModel, type AnthropicModelOptions } from './agents/models/anthropic-model.js';
export { geminiModel } from './agents/models/gemini-model.js';
export { createModel, type CreateModelOptions } from './agents/models/create-model.js';
