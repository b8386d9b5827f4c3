/**
 * `mcp-host/anthropic`: the host's tools (or a view's) as Anthropic Messages tools
 * (`anthropicTools`), with the `tool_result` blocks that answer the model's `tool_use` blocks
 * (images and PDFs as native blocks, failures with `is_error`). Schemas follow `anthropic` rules
 * by default. Works with `@anthropic-ai/sdk` (an optional peer dependency, of which only types
 * are used: this entry loads nothing of it).
 */
export {
  anthropicTools,
  type AnthropicTools,
  type AnthropicToolsOptions,
} from './agents/anthropic/anthropic-tools.js';
