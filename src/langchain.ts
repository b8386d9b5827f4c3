/**
 * `mcp-host/langchain`: the host's tools (or a view's) as LangChain tools (`@langchain/core` 1, an
 * optional peer dependency loaded only by this entry). See `langchainTools`.
 */
export {
  langchainTools,
  type LangChainTool,
  type LangChainToolsOptions,
} from './agents/langchain/langchain-tools.js';
