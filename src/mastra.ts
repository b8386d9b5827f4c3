/**
 * `mcp-host/mastra`: the host's tools (or a view's) as Mastra tools, for `new Agent({ tools })`,
 * with images and audio handed to the model as media. Schemas follow `openai` rules by default.
 * Needs `@mastra/core` 1 (an optional peer dependency, loaded only by this entry).
 */
export {
  mastraTools,
  type MastraTool,
  type MastraToolsOptions,
} from './agents/mastra/mastra-tools.js';
