/**
 * `mcp-host/openai-agents`: the host's tools (or a view's) as OpenAI Agents JS function tools
 * (`@openai/agents`, an optional peer dependency loaded only by this entry). See
 * `openaiAgentsTools`.
 */
export {
  openaiAgentsTools,
  type OpenAIAgentsTool,
  type OpenAIAgentsToolOutput,
  type OpenAIAgentsToolsOptions,
} from './agents/openai-agents/openai-agents-tools.js';
