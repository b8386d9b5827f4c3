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
export { McpHost, DEFAULT_HOST_CLOSE_TIMEOUT_MS } from './host/mcp-host.js';
export type {
  ApprovalRequest,
  CallContext,
  HostOptions,
  HostServerDefinition,
  HostTool,
  NativeTool,
} from './host/host-options.js';
export type {
  CatalogueSnapshot,
  DrainOptions,
  McpHostOptions,
  ToolsChangedEvent,
} from './host/mcp-host-options.js';
export type { HostCallOptions, ToolCallEvent } from './host/host-calls.js';
export type { ServerState, ServerStatus } from './host/server-status.js';
export type { HealthCheckOptions } from './host/slot-supervision.js';
export type { RestartOptions } from './host/restart-policy.js';
export type { ToolNamingOptions } from './host/namer.js';
export type {
  PinChange,
  PinDecision,
  PinEvent,
  PinPolicy,
  PinRecord,
  QuarantinedTool,
} from './host/pin-types.js';
export type { QuarantineReason } from './host/quarantined-error.js';
export type { ToolChange, ToolDiff } from './host/tool-diff.js';
export { AuditRingSink } from './host/audit.js';
export type { AuditRecord, AuditSink } from './host/audit.js';
export type { MetricsSnapshot } from './host/metrics.js';
export { TOOL_CALL_CHANNEL_NAMES } from './host/tracing.js';

// ---- The client: one server, either protocol era (docs/eras.md) --------------------------------
export { McpClient } from './client/mcp-client.js';
export type { CallOptions, Listing, McpClientState, ToolListing } from './client/client-types.js';
export type {
  CachedEra,
  EraStore,
  McpClientOptions,
  ServerInputContext,
  ServerInputHandlers,
} from './client/client-options.js';
export { DEFAULT_CONNECT_TIMEOUT_MS } from './client/client-options.js';
export type { ListChange } from './client/list-watcher.js';
export type { Session } from './client/open-session.js';
export type { RetryPolicy } from './client/request-retry.js';

// ---- Transports: the contract, and servers described as plain data -----------------------------
export { JsonRpcPeer } from './jsonrpc/peer.js';
export type { PeerState } from './jsonrpc/peer.js';
export { DEFAULT_REQUEST_TIMEOUT_MS } from './jsonrpc/peer-options.js';
export type { JsonRpcPeerOptions, RequestOptions } from './jsonrpc/peer-options.js';
export type { Transport, TransportProblem, TransportState } from './jsonrpc/transport.js';
export { DEFAULT_MAX_MESSAGE_BYTES } from './jsonrpc/line-decoder.js';
export { serverIdentity } from './transport/transport-definition.js';
export type { ServerIdentity, TransportDefinition } from './transport/transport-definition.js';

// ---- Errors (docs/errors.md) -------------------------------------------------------------------
export { errorCodes, ErrorCode, isErrorCode } from './errors/codes.js';
export { McpHostError, ProcessExitedError, isMcpHostError } from './errors/mcp-host-error.js';
export type { ErrorContext } from './errors/mcp-host-error.js';
export { JsonRpcError, JsonRpcErrorCode, isJsonRpcError } from './errors/json-rpc-error.js';
export { toMcpHostError } from './errors/to-mcp-host-error.js';
export { addSecret, redact } from './errors/redact.js';

// ---- The protocol: methods, versions, message types --------------------------------------------
export { McpMethod, McpErrorCode } from './protocol/methods.js';
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
export { silentLogger } from './internal/logger.js';
export type { LogFields, Logger } from './internal/logger.js';
export type { Disposable } from './internal/disposable.js';
export { createSchemaValidator } from './schema/schema-validator.js';
export type { SchemaValidator, SchemaValidatorOptions } from './schema/schema-validator.js';
