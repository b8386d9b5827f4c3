/**
 * `mcp-host/openai`: the host's tools (or a view's) as OpenAI function tools, for Chat Completions
 * (`openaiChatTools`) and the Responses API (`openaiResponsesTools`), with the messages or items
 * that answer the model's calls. Schemas follow `openai-strict` rules by default (a tool that
 * cannot be made strict is sent with `strict: false`). Works with the `openai` package (an optional
 * peer dependency, of which only types are used: this entry loads nothing of it).
 */
export { openaiChatTools, type OpenAIChatTools } from './agents/openai/openai-chat-tools.js';
export {
  openaiResponsesTools,
  type FunctionCallOutputItem,
  type OpenAIResponsesTools,
} from './agents/openai/openai-responses-tools.js';
export type { OpenAIToolsOptions } from './agents/openai/openai-tools-options.js';
