/**
 * `mcp-host/mastra`: the host's tools (or a view's) as Mastra tools, for `new Agent({ tools })`.
 * Needs `@mastra/core` 1 (an optional peer dependency, loaded only by this entry).
 */
export { mastraTools } from './agents/mastra/mastra-tools.js';
export type { MastraTool, MastraToolsOptions } from './agents/mastra/mastra-tools.js';
