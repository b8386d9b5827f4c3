/** The host: many MCP servers as one toolset (see docs/host.md). */
export {
  McpHost,
  DEFAULT_HOST_CLOSE_TIMEOUT_MS,
  type CatalogueSnapshot,
  type DrainOptions,
  type HostCallOptions,
  type McpHostOptions,
  type ToolCallEvent,
  type ToolsChangedEvent,
} from './mcp-host.js';
export type {
  ApprovalRequest,
  CallContext,
  HostOptions,
  HostServerDefinition,
  HostTool,
  NativeTool,
} from './host-options.js';
export type { ServerState, ServerStatus } from './server-status.js';
export type {
  PinChange,
  PinDecision,
  PinEvent,
  PinPolicy,
  PinRecord,
  QuarantinedTool,
} from './pin-types.js';
export type { QuarantineReason } from './quarantined-error.js';
export type { ToolChange, ToolDiff } from './tool-diff.js';
export type { HealthCheckOptions } from './server-slot.js';
export type { RestartOptions } from './restart-policy.js';
export {
  ToolNames,
  assignNames,
  exposedName,
  serverKeyProblems,
  toProviderSafe,
  isProviderSafeName,
  DEFAULT_TOOL_NAMING,
  PROVIDER_SAFE_NAME,
  type ToolNamingOptions,
  type ToolRef,
  type NameAssignment,
  type NameCollision,
  type ServerKeyProblem,
  type ServerKeyProblemReason,
} from './tool-names.js';
export {
  ToolAccess,
  compileGlob,
  compileGlobs,
  compileAllowBlock,
  compileToolFilter,
  type AccessDenial,
  type DynamicToolFilter,
  type NameMatcher,
  type ToolAccessContext,
  type ToolAccessEntry,
  type ToolAccessOptions,
  type ToolFilterContext,
  type ToolFilterSpec,
} from './tool-filters.js';
export { ResourceRoutes, type ResourceConflict } from './resource-routes.js';
export type { AuditRecord, AuditSink } from './audit.js';
export { AuditRingSink } from './audit.js';
export type { MetricsSnapshot } from './metrics.js';
export { TOOL_CALL_CHANNEL_NAMES } from './tracing.js';
