/**
 * `mcp-host/naming`: the tool naming scheme of `McpHost`, for code that names tools the same way
 * outside a host (a gateway's catalogue, an agent adapter): `mcp__{server}__{tool}` by default,
 * provider-safe (`^[a-zA-Z0-9_-]{1,64}$`), unique, and stable (a clash or an over-long name gets a
 * short hash suffix, decided by the names alone, not by listing order). Platform-neutral.
 */
export {
  assignNames,
  exposedName,
  serverKeyProblems,
  type NameAssignment,
  type NameCollision,
} from './host/naming/name-assignment.js';
export {
  DEFAULT_TOOL_NAMING,
  PROVIDER_SAFE_NAME,
  isProviderSafeName,
  toProviderSafe,
  type ServerKeyProblem,
  type ServerKeyProblemReason,
  type ToolNamingOptions,
  type ToolRef,
} from './host/naming/namer.js';
export { ToolNames } from './host/naming/tool-names.js';
