/**
 * `mcp-host/agents`: the host's tools for any model, provider-neutral. A tool set gives each tool
 * its exposed name, description and input schema normalised for one provider (`openai-strict`,
 * `openai`, `anthropic`, `gemini`), and runs what a model called through `host.callTool` (or a
 * view's), returning the result as parts a model can be given. The adapters for agent libraries
 * (`mcp-host/openai`, `mcp-host/anthropic`, `mcp-host/ai-sdk`, `mcp-host/langchain`,
 * `mcp-host/openai-agents`, `mcp-host/mastra`) are thin mappings of it.
 */
export { AgentToolset, createAgentToolset } from './agents/agent-toolset.js';
export type {
  AgentCallOptions,
  AgentTool,
  AgentToolsetOptions,
  ToolSource,
} from './agents/agent-toolset.js';
export { partsText, toModelError, toModelResult } from './agents/model-result.js';
export type { ModelResultPart, ModelToolResult } from './agents/model-result.js';
export { normaliseToolSchema } from './agents/schemas/normalise-tool-schema.js';
export type {
  NormalisedSchema,
  SchemaDiagnostic,
  SchemaProvider,
} from './agents/schemas/normalise-tool-schema.js';
export { DEFAULT_SKILL_TOOL_OPTIONS, createSkillTool, skillText } from './agents/skill-tool.js';
export type { SkillTool, SkillToolOptions } from './agents/skill-tool.js';
export {
  DEFAULT_TOOL_SEARCH_OPTIONS,
  ToolSearch,
  createToolSearch,
} from './agents/search/tool-search.js';
export type { ToolMatch, ToolSearchOptions } from './agents/search/tool-search.js';
