/**
 * `mcp-host/ai-sdk`: the host's tools (or a view's) as a Vercel AI SDK tool set, for
 * `generateText({ model, tools })`, `streamText` and the SDK's agents. Needs `ai` 7 (an optional
 * peer dependency, loaded only by this entry).
 */
export { aiSdkTools } from './agents/ai-sdk/ai-sdk-tools.js';
export type { AiSdkToolsOptions } from './agents/ai-sdk/ai-sdk-tools.js';
