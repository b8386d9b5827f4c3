/**
 * `mcp-host/agent`: a small agent of our own. `agent()` builds one (a model, MCP servers or a
 * host, native tools, limits); `run` answers a prompt, calling tools in parallel through the host;
 * `stream` yields its events for a UI. Models are `ModelClient`s: one per provider over `fetch`,
 * or your own.
 */
export { Agent, DEFAULT_AGENT_OPTIONS, createAgent } from './agents/loop/agent.js';
export type {
  AgentEvent,
  AgentOptions,
  AgentResult,
  AgentRunOptions,
  AgentStopReason,
} from './agents/loop/agent.js';
export { AgentBuilder, agent } from './agents/loop/agent-builder.js';
export type { StdioServerOptions } from './agents/loop/agent-builder.js';
export type {
  ModelClient,
  ModelEvent,
  ModelMessage,
  ModelRequest,
  ModelToolCall,
  ModelUsage,
} from './agents/models/model-client.js';
