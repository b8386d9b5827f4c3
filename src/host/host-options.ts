import type { Logger } from '../internal/logger.js';
import type { Transport } from '../jsonrpc/transport.js';
import type { TransportDefinition } from '../transport/transport-definition.js';
import type { McpClientOptions } from '../client/client-options.js';
import type { CallToolResult, Tool, ToolAnnotations } from '../protocol/types.js';
import type { JsonObject } from '../jsonrpc/message.js';
import type { StateStore } from '../state/state-store.js';
import type { RestartOptions } from './restart-policy.js';

/** One server the host manages. */
export interface HostServerDefinition {
  /**
   * The server's key: its namespace in tool names (`mcp__{name}__{tool}`), in errors, events and
   * metrics. It comes from the host's configuration, never from the server's own `serverInfo`.
   */
  name: string;
  /**
   * How to reach the server: a plain definition (`{ type: 'stdio', command, args }`, or a URL for
   * `http`, `sse`, `websocket`), from which each connect (and restart) builds a fresh transport,
   * or a function that makes one.
   */
  transport: TransportDefinition | (() => Transport | Promise<Transport>);
  /** Start disabled: registered, listed in the status, never connected until enabled. */
  enabled?: boolean;
  /** Connect on first use instead of at `start()`. */
  lazy?: boolean;
  /**
   * A stable identity of the server's definition (see `serverIdentity`): keys the era cache and
   * tool pins in the state store. Default: `name`.
   */
  identity?: string;
  /** Client settings: timeouts, input handlers, era, retries of side-effect-free requests. */
  client?: Omit<McpClientOptions, 'transport' | 'serverName' | 'identity' | 'stateStore'>;
  /** Calls in flight at once to this server (default 16). */
  maxInFlight?: number;
  /** Calls waiting behind those; one more fails at once with `QUEUE_FULL` (default 256). */
  maxQueue?: number;
  /** Static tool filter by original tool name, with `*` and `?` globs; block wins. */
  tools?: { allow?: readonly string[]; block?: readonly string[] };
  /**
   * Trust this server's tool annotations: a `tools/call` of a tool it marks `readOnlyHint` or
   * `idempotentHint` may then be retried after a connection failure. Default false: annotations
   * are hints from the server, not guarantees.
   */
  trusted?: boolean;
  /** This server's restart policy, over the host-wide `restart` (field by field). */
  restart?: RestartOptions;
  /** How long a tool listing is reused when the server gives no hint and no list_changed (ms). */
  toolsTtlMs?: number;
}

/** What a call knows of who is calling: passed to filters, permissions and the approval hook. */
export interface CallContext {
  /** The agent (or user) on whose behalf the call is made; keys per-agent permissions. */
  agent?: string;
  /** Anything the application wants its filters and hooks to see. */
  run?: unknown;
}

/** A tool as the host offers it: MCP or native, under its exposed name. */
export interface HostTool {
  /** The exposed name: unique, provider-safe (`^[a-zA-Z0-9_-]{1,64}$`) by default. */
  name: string;
  title?: string;
  description?: string;
  inputSchema: Tool['inputSchema'];
  outputSchema?: Tool['outputSchema'];
  annotations?: ToolAnnotations;
  /** The server it comes from; undefined for a native tool. */
  server?: string;
  /** The tool's own name on its server (or the native tool's name). */
  originalName: string;
}

/** A tool implemented in the application, offered beside the MCP tools. */
export interface NativeTool {
  name: string;
  description?: string;
  title?: string;
  inputSchema: Tool['inputSchema'];
  outputSchema?: Tool['outputSchema'];
  annotations?: ToolAnnotations;
  /** Runs the tool; a thrown error becomes an error result for the model. */
  run(
    args: JsonObject,
    context: { signal: AbortSignal; context: CallContext | undefined },
  ): Promise<CallToolResult | string> | CallToolResult | string;
}

/** What the approval hook is asked before a call. */
export interface ApprovalRequest {
  tool: HostTool;
  args: JsonObject;
  context: CallContext | undefined;
}

export interface HostOptions {
  servers?: readonly HostServerDefinition[];
  logger?: Logger;
  /** Where era caches and tool pins are kept between runs. */
  stateStore?: StateStore;
  /**
   * Decides, per tool and caller, whether a tool is visible and callable: applied both when
   * listing and when calling, so a hidden tool cannot be called by naming it. A filter that
   * throws hides the tool.
   */
  filter?: (tool: HostTool, context: CallContext | undefined) => boolean;
  /**
   * Asked before every call (human in the loop); false, a throw or a rejection refuses the call
   * (`TOOL_DENIED`, the hook's error as its cause).
   */
  approve?: (request: ApprovalRequest) => boolean | Promise<boolean>;
  /** Calls' default deadline, per call (default: the client's request timeout). */
  callTimeoutMs?: number;
  /** Largest result handed onward, in bytes of text (default 1 MiB; 0 turns the budget off). */
  maxResultBytes?: number;
  /** Bound on `close()` (default 5 s): servers still closing then are killed by their transports. */
  closeTimeoutMs?: number;
}
