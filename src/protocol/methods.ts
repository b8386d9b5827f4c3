/** MCP method names, both eras. */
export const McpMethod = {
  Initialize: 'initialize',
  Initialized: 'notifications/initialized',
  Discover: 'server/discover',
  Ping: 'ping',
  ToolsList: 'tools/list',
  ToolsCall: 'tools/call',
  ResourcesList: 'resources/list',
  ResourceTemplatesList: 'resources/templates/list',
  ResourcesRead: 'resources/read',
  ResourcesSubscribe: 'resources/subscribe',
  ResourcesUnsubscribe: 'resources/unsubscribe',
  PromptsList: 'prompts/list',
  PromptsGet: 'prompts/get',
  Complete: 'completion/complete',
  LoggingSetLevel: 'logging/setLevel',
  /** The skills extension (`io.modelcontextprotocol/skills`, SEP-2640). */
  SkillsList: 'skills/list',
  SkillsGet: 'skills/get',
  /** The skills extension's directory listing (when the server declared `directoryRead`). */
  ResourcesDirectoryRead: 'resources/directory/read',
  /** The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663). */
  TasksGet: 'tasks/get',
  TasksUpdate: 'tasks/update',
  TasksCancel: 'tasks/cancel',
  SubscriptionsListen: 'subscriptions/listen',
  SamplingCreateMessage: 'sampling/createMessage',
  RootsList: 'roots/list',
  ElicitationCreate: 'elicitation/create',
  Cancelled: 'notifications/cancelled',
  Progress: 'notifications/progress',
  Message: 'notifications/message',
  ToolsListChanged: 'notifications/tools/list_changed',
  ResourcesListChanged: 'notifications/resources/list_changed',
  PromptsListChanged: 'notifications/prompts/list_changed',
  ResourceUpdated: 'notifications/resources/updated',
  RootsListChanged: 'notifications/roots/list_changed',
  SubscriptionsAcknowledged: 'notifications/subscriptions/acknowledged',
  ElicitationComplete: 'notifications/elicitation/complete',
} as const;

export type McpMethodName = (typeof McpMethod)[keyof typeof McpMethod];

/**
 * The tasks extension's identifier (SEP-2663): declared in `capabilities.extensions` by a server
 * that may answer a `tools/call` with a task, and in a request's `_meta` client capabilities by a
 * client that accepts one.
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** `_meta` keys of the modern era. */
export const MetaKey = {
  ProtocolVersion: 'io.modelcontextprotocol/protocolVersion',
  ClientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  ClientInfo: 'io.modelcontextprotocol/clientInfo',
  LogLevel: 'io.modelcontextprotocol/logLevel',
  ServerInfo: 'io.modelcontextprotocol/serverInfo',
  /** On a `subscriptions/listen` stream's messages: the id of the request that opened it. */
  SubscriptionId: 'io.modelcontextprotocol/subscriptionId',
  ProgressToken: 'progressToken',
} as const;

/** JSON-RPC error codes MCP defines on top of JSON-RPC's own. */
export const McpErrorCode = {
  ResourceNotFound: -32002,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  UrlElicitationRequired: -32042,
} as const;

/** Errors whose presence proves the server speaks the modern era (it will never fall back). */
export const MODERN_ERROR_CODES: readonly number[] = [
  McpErrorCode.HeaderMismatch,
  McpErrorCode.MissingRequiredClientCapability,
  McpErrorCode.UnsupportedProtocolVersion,
];
