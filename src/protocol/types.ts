/**
 * MCP's data types as the client uses them, for both eras. Objects keep fields this library does
 * not know (`[key: string]: unknown`): a newer server's additions pass through untouched.
 */
import type { JsonObject } from '../jsonrpc/message.js';

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  [key: string]: unknown;
}

export interface ClientCapabilities {
  roots?: { listChanged?: boolean };
  sampling?: JsonObject;
  elicitation?: { form?: JsonObject; url?: JsonObject };
  experimental?: Record<string, JsonObject>;
  extensions?: Record<string, JsonObject>;
  [key: string]: unknown;
}

export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  resources?: { listChanged?: boolean; subscribe?: boolean };
  prompts?: { listChanged?: boolean };
  logging?: JsonObject;
  completions?: JsonObject;
  experimental?: Record<string, JsonObject>;
  extensions?: Record<string, JsonObject>;
  [key: string]: unknown;
}

export type LoggingLevel =
  'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

export const LOGGING_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** Cache hints of the modern era on list and read results. */
export interface CacheHints {
  /** How long the result may be reused, in ms (0: stale at once). */
  ttlMs?: number;
  /** `public`: shareable across authorisation contexts; `private`: only within one. */
  cacheScope?: 'public' | 'private';
}

export interface InitializeResult {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
  [key: string]: unknown;
}

export interface DiscoverResult extends CacheHints {
  resultType?: string;
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
  _meta?: JsonObject;
  [key: string]: unknown;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: ToolAnnotations;
  _meta?: JsonObject;
  [key: string]: unknown;
}

export interface TextContent {
  type: 'text';
  text: string;
  [key: string]: unknown;
}
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  [key: string]: unknown;
}
export interface AudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
  [key: string]: unknown;
}
export interface ResourceLink {
  type: 'resource_link';
  uri: string;
  name: string;
  [key: string]: unknown;
}
export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  [key: string]: unknown;
}
export type ContentBlock =
  TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: JsonObject;
  isError?: boolean;
  _meta?: JsonObject;
  [key: string]: unknown;
}

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  [key: string]: unknown;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  [key: string]: unknown;
}

export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  [key: string]: unknown;
}

export interface ReadResourceResult extends CacheHints {
  contents: ResourceContents[];
  [key: string]: unknown;
}

export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
  [key: string]: unknown;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  [key: string]: unknown;
}

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
  [key: string]: unknown;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  [key: string]: unknown;
}

export type CompletionReference =
  { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  [key: string]: unknown;
}

export interface Root {
  uri: string;
  name?: string;
  [key: string]: unknown;
}

export interface CreateMessageRequestParams {
  messages: { role: 'user' | 'assistant'; content: unknown }[];
  maxTokens: number;
  systemPrompt?: string;
  [key: string]: unknown;
}

export interface CreateMessageResult {
  role: 'assistant';
  content: unknown;
  model: string;
  stopReason?: string;
  [key: string]: unknown;
}

export type ElicitRequestParams =
  | { mode?: 'form'; message: string; requestedSchema: JsonObject; [key: string]: unknown }
  | { mode: 'url'; message: string; url: string; elicitationId: string; [key: string]: unknown };

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: JsonObject;
  [key: string]: unknown;
}

export interface ProgressNotificationParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
  [key: string]: unknown;
}

export interface LoggingMessageParams {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
  [key: string]: unknown;
}

/** A server's request for input, inside a modern `input_required` result. */
export interface InputRequest {
  method: string;
  params?: JsonObject;
  [key: string]: unknown;
}

export interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests?: Record<string, InputRequest>;
  requestState?: string;
  [key: string]: unknown;
}

/**
 * Where a task stands (the tasks extension, SEP-2663): `working`, `input_required` (it waits for
 * answers to its `inputRequests`, given with `tasks/update`), or one of the terminal states
 * `completed` (its tool ran: the result, maybe `isError`), `failed` (a protocol-level error) and
 * `cancelled`.
 */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task as a server describes it (SEP-2663): its id, status and timing. */
export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** How long the server keeps the task after it was created (null: no limit). */
  ttlMs?: number | null;
  /** How often the server suggests polling `tasks/get`. */
  pollIntervalMs?: number;
  [key: string]: unknown;
}

/** A `tools/call` answered with a task instead of its result: poll it with `tasks/get`. */
export interface CreateTaskResult extends Task {
  resultType: 'task';
}

/**
 * A task as `tasks/get` gives it: the tool's `result` once `completed`, the `error` once `failed`,
 * the `inputRequests` it waits for while `input_required` (answered with `tasks/update`).
 */
export interface DetailedTask extends Task {
  result?: CallToolResult;
  error?: { code: number; message: string; data?: unknown };
  inputRequests?: Record<string, InputRequest>;
}

/** One page of a paginated list. */
export interface Page<T> extends CacheHints {
  items: T[];
  nextCursor?: string;
}
