/** The host: many MCP servers as one toolset (see docs/host.md). */
export {
  ToolNames,
  assignNames,
  exposedName,
  serverKeyProblems,
  toProviderSafe,
  isProviderSafeName,
  DEFAULT_TOOL_NAMING,
  PROVIDER_SAFE_NAME,
  type ToolNamingOptions,
  type ToolRef,
  type NameAssignment,
  type NameCollision,
  type ServerKeyProblem,
  type ServerKeyProblemReason,
} from './tool-names.js';
export {
  ToolAccess,
  compileGlob,
  compileGlobs,
  compileAllowBlock,
  compileToolFilter,
  type AccessDenial,
  type DynamicToolFilter,
  type NameMatcher,
  type ToolAccessContext,
  type ToolAccessEntry,
  type ToolAccessOptions,
  type ToolFilterContext,
  type ToolFilterSpec,
} from './tool-filters.js';
export { ResourceRoutes, type ResourceConflict } from './resource-routes.js';
