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
export {
  expandServer,
  expandableFields,
  formatKeyPath,
  type ExpandedField,
  type ExpandedReference,
  type ExpandedServer,
  type ExpandOptions,
  type ExpandResult,
  type FieldPath,
} from './config/expand.js';
export {
  parseTemplate,
  formatTemplate,
  hasReferences,
  TemplateSyntaxError,
  type TemplatePart,
} from './config/template.js';
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
} from './config/input-providers.js';
export { parseDotenv, DotenvSyntaxError } from './config/dotenv.js';
export {
  maskConfig,
  maskServer,
  maskTemplate,
  NON_SECRET_VARIABLES,
  NON_SECRET_HEADERS,
  argvDiagnostics,
  fileModeDiagnostics,
  type MaskOptions,
} from './config/secrets.js';
export {
  resolveServer,
  resolveConfig,
  createServerResolver,
  clientOptions,
  type ResolveOptions,
  type ResolveConfigOptions,
  type ResolvedServer,
  type ResolveServerResult,
} from './config/resolve-config.js';
export { ResolvedConfig, type ResolvedHostOptions } from './config/resolved-config.js';
export {
  dialects,
  foreignDialects,
  isForeignDialect,
  importConfig,
  importConfigText,
  detectDialect,
  detectByShape,
  readForeignText,
  textFormatOf,
  type ForeignDialect,
  type DialectModule,
  type DialectReadOptions,
  type DialectReadResult,
  type DialectWriteResult,
  type ReadForeignOptions,
  type ReadForeignResult,
  type ImportConfigOptions,
  type ImportConfigResult,
} from './config/dialects/index.js';
export {
  writeConfigFile,
  type WriteConfigFileOptions,
  type WriteConfigFileResult,
} from './config/write-config-file.js';
export {
  readNativeConfig,
  readNativeText,
  writeNativeConfig,
  toNativeDocument,
  inferTransportType,
  nativeDialect,
  nativeSchema,
  NATIVE_SCHEMA_ID,
  type NativeDocument,
  type NativeReadResult,
  type NativeWriteOptions,
  type NativeWriteResult,
  type SchemaNode,
} from './config/native.js';
export {
  ConfigError,
  isConfigError,
  isFileLevelError,
  formatDiagnostic,
  closestKey,
} from './config/diagnostics.js';
export {
  loadConfig,
  tryLoadConfig,
  readConfigText,
  mergeConfigs,
  MAX_CONFIG_FILE_BYTES,
  type LoadConfigOptions,
  type LoadConfigResult,
  type ReadConfigResult,
} from './config/load.js';
export {
  discoverConfigFiles,
  configSearchPaths,
  userConfigDir,
  type ConfigFileSpec,
} from './config/discover.js';
