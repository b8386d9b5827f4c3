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
export { ConfigReloader, watchConfig } from './config/reload/reload.js';
export {
  DEFAULT_DRAIN_TIMEOUT_MS,
  type ConfigReloaderOptions,
  type LoadedConfig,
  type ReloadErrorEvent,
  type ReloadEvent,
  type ReloadOutcome,
  type ReloadTrigger,
  type ServerResolution,
} from './config/reload/reload-types.js';
export { DEFAULT_RELOAD_DEBOUNCE_MS } from './config/reload/config-watcher.js';
export {
  expandServer,
  expandableFields,
  type ExpandedField,
  type ExpandedReference,
  type ExpandedServer,
  type ExpandOptions,
  type ExpandResult,
  type FieldPath,
} from './config/expand/expand.js';
export {
  parseTemplate,
  formatTemplate,
  hasReferences,
  type TemplatePart,
} from './config/expand/template.js';
export {
  InputResolver,
  envInputProvider,
  callbackInputProvider,
  chainInputProviders,
  ttyInputProvider,
  DEFAULT_INPUTS_VARIABLE,
  type InputContext,
  type InputProvider,
  type InputResolverOptions,
  type TtyInputProviderOptions,
} from './config/expand/input-providers.js';
export { parseDotenv, DotenvSyntaxError } from './config/expand/dotenv.js';
export {
  maskConfig,
  maskServer,
  maskTemplate,
  maskUrl,
  argvDiagnostics,
  fileModeDiagnostics,
  type MaskOptions,
} from './config/expand/secrets.js';
export { NON_SECRET_VARIABLES, NON_SECRET_HEADERS } from './errors/secret-values.js';
export {
  resolveServer,
  resolveConfig,
  createServerResolver,
  clientOptions,
  type ResolveOptions,
  type ResolveConfigOptions,
  type ResolveServerResult,
} from './config/resolve-config.js';
export {
  ResolvedConfig,
  type ResolvedHostOptions,
  type ResolvedServer,
} from './config/resolved-config.js';
export {
  dialects,
  foreignDialects,
  isForeignDialect,
  type ForeignDialect,
} from './config/dialects/registry.js';
export {
  importConfig,
  importConfigText,
  type ImportConfigOptions,
  type ImportConfigResult,
} from './config/dialects/import-config.js';
export { detectDialect, detectByShape } from './config/dialects/detect.js';
export { textFormatOf } from './config/dialects/readers/read-dialect-text.js';
export {
  readForeignText,
  type ReadForeignOptions,
  type ReadForeignResult,
} from './config/dialects/read-text.js';
export {
  type DialectModule,
  type DialectReadOptions,
  type DialectReadResult,
  type DialectWriteResult,
} from './config/dialects/types.js';
export {
  writeConfigFile,
  type WriteConfigFileOptions,
  type WriteConfigFileResult,
} from './config/write-config-file.js';
export {
  readNativeConfig,
  type NativeDocument,
  type NativeReadResult,
} from './config/native/native-read.js';
export { readNativeText, nativeDialect } from './config/native/native.js';
export {
  writeNativeConfig,
  toNativeDocument,
  type NativeWriteOptions,
  type NativeWriteResult,
} from './config/native/native-write.js';
export { inferTransportType } from './config/native/native-rules.js';
export { nativeSchema, NATIVE_SCHEMA_ID, type SchemaNode } from './config/native/native-schema.js';
export {
  ConfigError,
  isConfigError,
  isFileLevelError,
  formatDiagnostic,
  formatKeyPath,
  closestKey,
} from './config/diagnostics.js';
export {
  loadConfig,
  tryLoadConfig,
  mergeConfigs,
  MAX_CONFIG_FILE_BYTES,
  type LoadConfigOptions,
  type LoadConfigResult,
  type ReadConfigResult,
} from './config/load.js';
export { readConfigText } from './config/read-config-text.js';
export {
  discoverConfigFiles,
  configSearchPaths,
  userConfigDir,
  type ConfigFileSpec,
} from './config/discover.js';
export {
  resolveGatewaySettings,
  defaultGatewayTokenFile,
  DEFAULT_GATEWAY_HOST,
  type GatewayOverrides,
  type GatewaySettings,
  type GatewayClientSettings,
  type GatewaySettingsOptions,
} from './config/gateway-settings.js';
export {
  resolveStateSettings,
  type StateSettings,
  type StateSettingsOptions,
} from './config/state-settings.js';
