import { McpHostError } from '../../errors/mcp-host-error.js';
import { serverKeyProblems } from './name-assignment.js';
import { type ToolNamingOptions } from './namer.js';

/**
 * Throws `INVALID_ARGUMENT` unless `name` can join the servers named `existing`: it must be new,
 * and able to namespace tools (not empty, not too long, without the separator, and not the same
 * as another key once sanitised), rather than silently offering no tools.
 */
export function assertServerKey(
  existing: ReadonlyMap<string, unknown>,
  name: string,
  naming: ToolNamingOptions | undefined,
): void {
  if (existing.has(name))
    throw new McpHostError('INVALID_ARGUMENT', `a server named '${name}' is already registered`, {
      serverName: name,
    });
  const problem = serverKeyProblems([...existing.keys(), name], naming).find(
    (p) => p.server === name,
  );
  if (problem !== undefined)
    throw new McpHostError('INVALID_ARGUMENT', `server key '${name}': ${problem.message}`, {
      serverName: name,
      details: { reason: problem.reason },
    });
}
