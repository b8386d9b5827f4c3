/** The host's vocabulary of tools: a tool as the host offers it, a native tool, who is calling. */
import type { JsonObject } from '../jsonrpc/message.js';
import type { CallToolResult, Tool, ToolAnnotations } from '../protocol/types.js';

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
