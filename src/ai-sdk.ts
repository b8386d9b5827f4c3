/**
 * `mcp-host/ai-sdk`: the host's tools (or a view's) as a Vercel AI SDK tool set, for
 * `generateText({ model, tools })`, `streamText` and the SDK's agents, with images and audio
 * handed to the model as media. Schemas follow `openai` rules by default. Needs `ai` 7 (an
 * optional peer dependency, loaded only by this entry).
 */
export {
  aiSdkTools,
  type AiSdkToolOutput,
  type AiSdkToolsOptions,
} from './agents/ai-sdk/ai-sdk-tools.js';
