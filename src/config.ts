/**
 * `mcp-host/config`: configuration files. Parsing with source positions, the native `mcp.yaml` /
 * `mcp.json` format, foreign dialects, loading and merging several files, expansion of `${...}`
 * templates, secrets and hot reload (see docs/config.md). Node-only (reads files).
 *
 * Each part appends its own export block below.
 */
export type * from './config/model.js';
export {
  parseConfigText,
  formatOfFile,
  type ConfigTextFormat,
  type KeyPath,
  type ParsedDocument,
  type TextPosition,
} from './config/parse.js';
export {
  ConfigReloader,
  watchConfig,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_RELOAD_DEBOUNCE_MS,
  type ConfigReloaderOptions,
  type LoadedConfig,
  type ReloadErrorEvent,
  type ReloadEvent,
  type ReloadOutcome,
  type ReloadTrigger,
  type ResolvedServer as ReloadResolvedServer,
} from './config/reload.js';
