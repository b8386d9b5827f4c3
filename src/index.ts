/**
 * mcp-host: the host side of the Model Context Protocol.
 *
 * This root entry is the public API in one list, grouped by what a user does with it, and it is
 * platform-neutral (it loads no Node-only module; a test proves it). Node-only parts and helpers
 * for narrower jobs have entries of their own: `mcp-host/stdio`, `mcp-host/http`, `mcp-host/ws`
 * (transports), `mcp-host/node` (file state store), `mcp-host/config` (config files),
 * `mcp-host/naming` (the tool naming scheme), `mcp-host/testing` (fakes). A test pins this list.
 */

// ---- The host: many servers as one toolset (docs/host.md) ---------------------------------------
export { McpHost } from './host/mcp-host.js';
export type { HostLogMessage, QuarantinedSummary } from './host/mcp-host.js';
export { DEFAULT_HOST_OPTIONS } from './host/host-options.js';
export type {
  CatalogueSnapshot,
  DrainOptions,
  McpHostOptions,
  StartSummary,
} from './host/host-options.js';
export type { HostServerDefinition } from './host/server-definition.js';
export type { AuthRequiredEvent, ServerOAuthOptions } from './host/server-oauth.js';
export type { ApprovalRequest, CallContext, HostTool, NativeTool } from './host/host-tool.js';
export type {
  HostSkill,
  HostSkillEntry,
  LoadedHostSkill,
  SkillRequestOptions,
  SkillServer,
} from './host/host-skills.js';
export type { ToolsChangedEvent } from './host/catalogue/tool-catalogue.js';
export type { ToolFilterSpec } from './host/catalogue/tool-filters.js';
export type { HostView } from './host/views/host-view.js';
export type { HostRequestOptions } from './host/host-resources.js';
export type { HostTaskOptions, HostTasks } from './host/host-tasks.js';
export type { ViewOptions } from './host/views/view-access.js';
export type {
  HostCallOptions,
  ToolCall,
  ToolCallAnswer,
  ToolCallEvent,
  ToolCallHandler,
  ToolCallInterceptor,
} from './host/calls/call-pipeline.js';
export type { ServerState, ServerStatus } from './host/slot/server-status.js';
export type { HealthCheckOptions } from './host/slot/health.js';
export type { RestartOptions } from './host/slot/restart-policy.js';
export type { ToolNamingOptions } from './host/naming/namer.js';
export type {
  PinChange,
  PinDecision,
  PinEvent,
  PinPolicy,
  PinRecord,
  QuarantinedTool,
} from './host/pins/pin-types.js';
export type { QuarantineReason } from './host/pins/quarantined-error.js';
export type { ToolChange, ToolDiff } from './host/pins/tool-diff.js';
export { AuditRingSink } from './host/observe/audit.js';
export type { AuditRecord, AuditSink } from './host/observe/audit.js';
export type { MetricsSnapshot } from './host/observe/metrics.js';
export { RESULT_TRUNCATED_META_KEY } from './host/calls/result-budget.js';
export type { ResultTruncation } from './host/calls/result-budget.js';
export { TOOL_CALL_CHANNEL_NAMES } from './host/observe/tracing.js';

// ---- The client: one server, either protocol era (docs/eras.md) --------------------------------
export { McpClient } from './client/mcp-client.js';
export type { ToolCallParams } from './client/client-options.js';
export type { ClientTasks } from './client/mcp-client.js';
export { DEFAULT_CLIENT_OPTIONS } from './client/client-options.js';
export type {
  CachedEra,
  CallOptions,
  EraStore,
  McpClientOptions,
  McpClientState,
  PromptListing,
  ResourceListing,
  ResourceTemplateListing,
  InputContinuation,
  InputResume,
  ServerInputContext,
  RetryPolicy,
  ServerInputHandlers,
  ToolListing,
} from './client/client-options.js';
export type { ListChange } from './client/list-watcher.js';
export type { Session } from './client/open-session.js';

// ---- Skills: the io.modelcontextprotocol/skills extension (docs/agents.md (Skills)) ------------------
export { SKILLS_EXTENSION } from './client/skills/skill-entry.js';
export type {
  SkillDirectoryPage,
  SkillEntry,
  SkillFrontmatter,
  SkillListing,
  SkillResource,
} from './client/skills/skill-entry.js';
export { DEFAULT_SKILL_LIMITS } from './client/skills/load-skill.js';
export type { LoadedSkill, LoadSkillOptions, SkillFile } from './client/skills/load-skill.js';

// ---- Transports: the contract, and servers described as plain data -----------------------------
export { JsonRpcPeer } from './jsonrpc/peer.js';
export type { PeerState } from './jsonrpc/peer.js';
export type {
  DiscardEvent,
  DiscardKind,
  JsonRpcPeerOptions,
  PeerStats,
  RequestOptions,
} from './jsonrpc/peer-options.js';
export type {
  Transport,
  TransportDiscards,
  TransportProblem,
  TransportState,
} from './jsonrpc/transport.js';
export { serverIdentity, type ServerIdentity } from './transport/server-identity.js';
export type {
  RemoteDefinition,
  StdioDefinition,
  TransportDefinition,
} from './transport/transport-definition.js';

// ---- Errors (docs/errors.md) -------------------------------------------------------------------
export { errorCodes } from './errors/code-docs.js';
export { ErrorCode, isErrorCode } from './errors/codes.js';
export { McpHostError, ProcessExitedError, isMcpHostError } from './errors/mcp-host-error.js';
export type { ErrorContext } from './errors/mcp-host-error.js';
export { JsonRpcError, JsonRpcErrorCode, isJsonRpcError } from './errors/json-rpc-error.js';
export { toMcpHostError } from './errors/to-mcp-host-error.js';
export { addSecret, redact } from './errors/redact.js';

// ---- The protocol: methods, versions, message types --------------------------------------------
export { McpMethod, McpErrorCode, TASKS_EXTENSION } from './protocol/methods.js';
export { isCreateTaskResult } from './protocol/guards.js';
export { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS, eraOf } from './protocol/versions.js';
export type { ProtocolEra, ProtocolVersion } from './protocol/versions.js';
export type * from './protocol/types.js';
export type {
  JsonObject,
  JsonRpcErrorResponse,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcSuccessResponse,
  RequestId,
} from './jsonrpc/message.js';

// ---- State, logging, schema validation ---------------------------------------------------------
export { MemoryStateStore } from './state/state-store.js';
export type { StateStore } from './state/state-store.js';
export type { Lease, LeaseOptions } from './state/lease.js';
export { silentLogger } from './internal/logger.js';
export type { LogFields, Logger } from './internal/logger.js';
export type {
  Telemetry,
  TelemetryContext,
  TelemetryOutcome,
  TelemetryRequest,
  TelemetrySpan,
} from './internal/telemetry.js';
export type { Disposable } from './internal/disposable.js';
export { createSchemaValidator } from './schema/schema-validator.js';
export type { SchemaValidator, SchemaValidatorOptions } from './schema/schema-validator.js';
