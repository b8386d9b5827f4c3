/**
 * The agent's native tools beside a host's (or view's) tools, as one `ToolSource`: the tool set
 * lists both and routes each call to its side. Native tools are the application's own code, so
 * they run here, in the agent, with the run's `signal` and the per-call timeout; the MCP tools go
 * through the host as usual, with every host policy.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import type { HostCallOptions } from '../../host/calls/call-pipeline.js';
import type { CallContext, HostTool, NativeTool } from '../../host/host-tool.js';
import type { JsonObject } from '../../jsonrpc/message.js';
import type { CallToolResult } from '../../protocol/types.js';
import type { ToolSource } from '../agent-toolset.js';

const PROVIDER_SAFE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * `source`'s tools and `natives` as one source. A native tool's name must be provider-safe and
 * unique among the natives (`INVALID_ARGUMENT`); an MCP tool of the same name is hidden behind it.
 */
export class NativeSource implements ToolSource {
  readonly #source: ToolSource;
  readonly #natives: ReadonlyMap<string, NativeTool>;
  readonly #listed: readonly HostTool[];

  constructor(source: ToolSource, natives: readonly NativeTool[]) {
    const byName = new Map<string, NativeTool>();
    for (const tool of natives) {
      if (typeof tool?.name !== 'string' || !PROVIDER_SAFE_NAME.test(tool.name))
        throw new McpHostError(
          'INVALID_ARGUMENT',
          `agent: native tool name ${JSON.stringify(String(tool?.name)).slice(0, 80)} must match ^[a-zA-Z0-9_-]{1,64}$`,
        );
      if (typeof tool.run !== 'function')
        throw new McpHostError(
          'INVALID_ARGUMENT',
          `agent: native tool '${tool.name}' has no run()`,
        );
      if (byName.has(tool.name))
        throw new McpHostError(
          'INVALID_ARGUMENT',
          `agent: two native tools are named '${tool.name}'`,
        );
      byName.set(tool.name, tool);
    }
    this.#source = source;
    this.#natives = byName;
    this.#listed = [...byName.values()].map(hostTool);
  }

  tools(context?: CallContext): HostTool[] {
    const hosted = this.#source.tools(context).filter((tool) => !this.#natives.has(tool.name));
    return [...hosted, ...this.#listed];
  }

  callTool(
    name: string,
    args: JsonObject = {},
    options: HostCallOptions = {},
  ): Promise<CallToolResult> {
    const native = this.#natives.get(name);
    if (native === undefined) return this.#source.callTool(name, args, options);
    return runNative(native, args, options);
  }
}

function hostTool(tool: NativeTool): HostTool {
  return {
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    originalName: tool.name,
  };
}

/**
 * Runs a native tool under the caller's signal and the idle timeout: a string result becomes a
 * text result, a throw an error result; the caller's abort rejects (`ABORTED`), the timeout gives
 * `REQUEST_TIMEOUT`. The tool's own promise is not awaited past either: its `signal` tells it.
 */
async function runNative(
  tool: NativeTool,
  args: JsonObject,
  options: HostCallOptions,
): Promise<CallToolResult> {
  const controller = new AbortController();
  const outer = options.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => {
      const error = new McpHostError('ABORTED', `native tool '${tool.name}' was aborted`, {
        tool: tool.name,
        cause: outer?.reason,
      });
      controller.abort(error);
      reject(error);
    };
    if (outer?.aborted === true) onAbort();
    else outer?.addEventListener('abort', onAbort, { once: true });
    if (options.timeoutMs !== undefined) {
      timer = setTimeout(() => {
        const error = new McpHostError(
          'REQUEST_TIMEOUT',
          `native tool '${tool.name}' did not finish within ${options.timeoutMs} ms`,
          { tool: tool.name, details: { kind: 'idle', timeoutMs: options.timeoutMs } },
        );
        controller.abort(error);
        reject(error);
      }, options.timeoutMs);
    }
  });
  stopped.catch(() => undefined);
  try {
    const run = Promise.resolve().then(() =>
      tool.run(args, { signal: controller.signal, context: options.context }),
    );
    const result = await Promise.race([run, stopped]).catch((error: unknown) => {
      if (controller.signal.aborted) throw controller.signal.reason;
      return {
        isError: true,
        content: [
          {
            type: 'text' as const,
            text: `Tool '${tool.name}' failed: ${error instanceof Error ? error.message : String(error)}`,
          },
        ],
      } satisfies CallToolResult;
    });
    return typeof result === 'string' ? { content: [{ type: 'text', text: result }] } : result;
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) outer?.removeEventListener('abort', onAbort);
  }
}
