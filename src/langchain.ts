/**
 * `mcp-host/langchain`: the host's tools (or a view's) as LangChain tools (`@langchain/core` 1, an
 * optional peer dependency loaded only by this entry). See `langchainTools`.
 */
export {
  langchainTools,
  type LangchainTool,
  type LangchainToolsOptions,
} from './agents/langchain/langchain-tools.js';
