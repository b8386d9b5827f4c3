/**
 * Host-wide roots (`McpHostOptions.roots`, `McpHost.setRoots`): the folders every server that has
 * no roots handler of its own is told about, answered to `roots/list` (legacy) and to a modern
 * `input_required` round alike. Checked once when given, and kept as a frozen copy, so a caller
 * changing its array later changes nothing.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import { isObject } from '../protocol/guards.js';
import type { Root } from '../protocol/types.js';

/**
 * `roots` checked and copied: each a `{ uri, name? }` whose `uri` is a `file://` URI (the only
 * scheme MCP allows for roots). Anything else is `INVALID_ARGUMENT` naming the entry.
 */
export function checkedRoots(roots: unknown): readonly Root[] {
  if (!Array.isArray(roots))
    throw new McpHostError('INVALID_ARGUMENT', 'roots: expected a list of { uri, name? }');
  return Object.freeze(
    roots.map((root: unknown, index): Root => {
      const where = `roots[${index}]`;
      if (!isObject(root) || typeof root.uri !== 'string')
        throw new McpHostError('INVALID_ARGUMENT', `${where}: expected { uri, name? }`);
      if (!root.uri.startsWith('file://') || !URL.canParse(root.uri))
        throw new McpHostError('INVALID_ARGUMENT', `${where}: the uri must be a file:// URI`, {
          details: { uri: root.uri },
        });
      if (root.name !== undefined && typeof root.name !== 'string')
        throw new McpHostError('INVALID_ARGUMENT', `${where}: the name must be text`);
      return Object.freeze({ ...root, uri: root.uri });
    }),
  );
}
