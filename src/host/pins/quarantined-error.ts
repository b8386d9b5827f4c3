/** The typed error of a call to a tool that tool pinning holds back. Platform-neutral. */
import { McpHostError } from '../../errors/mcp-host-error.js';
import type { ToolDiff } from './tool-diff.js';

/** The diff carried by a `TOOL_QUARANTINED` error keeps at most this many changes. */
export const MAX_ERROR_DIFF_CHANGES = 20;

/**
 * `changed`: differs from its pin; `new`: never pinned, held by the policy; `invalid`: cannot be
 * pinned (not JSON data, nested too deep, no name) or its name is listed twice with different
 * definitions.
 */
export type QuarantineReason = 'changed' | 'new' | 'invalid';

/**
 * The error of a call to a quarantined tool: `TOOL_QUARANTINED`, naming server and tool, with the
 * reason, the diff's summary and at most `MAX_ERROR_DIFF_CHANGES` of its changes in `details`.
 */
export function quarantinedError(
  server: string,
  tool: string,
  diff: ToolDiff,
  reason: QuarantineReason = 'changed',
): McpHostError {
  const why =
    reason === 'new'
      ? 'it is new and held for approval'
      : reason === 'invalid'
        ? 'its definition cannot be pinned'
        : 'its definition changed since it was pinned';
  const until =
    reason === 'invalid'
      ? 'until the server lists a definition that can be pinned'
      : 'until the change is approved';
  const changes = diff.changes.slice(0, MAX_ERROR_DIFF_CHANGES);
  return new McpHostError(
    'TOOL_QUARANTINED',
    `tool '${tool}' is quarantined: ${why} (${diff.summary}); it cannot be called ${until}`,
    {
      serverName: server,
      tool,
      details: {
        reason,
        summary: diff.summary,
        changes,
        truncated: diff.truncated || changes.length < diff.changes.length,
      },
    },
  );
}
