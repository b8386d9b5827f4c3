/**
 * Writes the normalised model as the native format: YAML (or JSON) in a stable key order, with
 * defaults left out (`enabled: true`, empty `args`, `env`, `headers`) and `type` written only when
 * the reader could not infer it. Keys a reader kept in `extra` are written back where they were,
 * so an import keeps what mcp-host does not understand. Reading the output back gives the same
 * model (apart from source locations).
 */
import {
  SERVER_SETTINGS,
  type ConfigDiagnostic,
  type ApiConfig,
  type GatewayConfig,
  type InputConfig,
  type McpConfig,
  type ServerConfig,
  type StateConfig,
  type ViewConfig,
} from '../model.js';
import { inferTransportType } from './native-rules.js';
import { toNativeRoot } from './native-roots.js';
import { isRecord } from '../parse.js';
import { yamlModule } from '../parser-modules.js';

export interface NativeWriteOptions {
  /** `yaml` (default) or `json` (2-space indent). */
  format?: 'yaml' | 'json';
}

export interface NativeWriteResult {
  text: string;
  diagnostics: ConfigDiagnostic[];
}

/** The native document (plain data) for a config; what `writeNativeConfig` prints. */
export function toNativeDocument(config: McpConfig): Record<string, unknown> {
  const { $schema, ...extra } = config.extra ?? {};
  const servers: Record<string, unknown> = {};
  for (const server of config.servers) servers[server.name] = toNativeServer(server);
  return {
    ...($schema === undefined ? {} : { $schema }),
    servers,
    ...(config.inputs === undefined || config.inputs.length === 0
      ? {}
      : { inputs: config.inputs.map(toNativeInput) }),
    ...(config.defaults === undefined || Object.keys(config.defaults).length === 0
      ? {}
      : { defaults: orderKeys(config.defaults, DEFAULTS_ORDER) }),
    ...(config.views === undefined || Object.keys(config.views).length === 0
      ? {}
      : { views: toNativeViews(config.views) }),
    ...(config.roots === undefined || config.roots.length === 0
      ? {}
      : { roots: config.roots.map(toNativeRoot) }),
    ...(config.gateway === undefined ? {} : { gateway: toNativeGateway(config.gateway) }),
    ...(config.api === undefined ? {} : { api: toNativeApi(config.api) }),
    ...(config.state === undefined ? {} : { state: toNativeState(config.state) }),
    ...extra,
  };
}

/** The views as written: their fields, without where they were read from. */
function toNativeViews(views: Readonly<Record<string, ViewConfig>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(views).map(([name, { source: _source, ...view }]) => [name, view]),
  );
}

/** The `gateway:` section as written, in the schema's key order, without its source. */
function toNativeGateway({ source: _source, ...gateway }: GatewayConfig): Record<string, unknown> {
  return orderKeys(gateway, GATEWAY_ORDER);
}

/** The `api:` section as written, in the schema's key order, without its source. */
function toNativeApi({ source: _source, ...api }: ApiConfig): Record<string, unknown> {
  return orderKeys(api, API_ORDER);
}

/** The `state:` section as written, without its source. */
function toNativeState({ source: _source, file, postgres }: StateConfig): Record<string, unknown> {
  return {
    ...(file === undefined ? {} : { file }),
    ...(postgres === undefined ? {} : { postgres: orderKeys(postgres, ['url', 'schema']) }),
  };
}

export function writeNativeConfig(
  config: McpConfig,
  options: NativeWriteOptions = {},
): NativeWriteResult {
  const document = toNativeDocument(config);
  const text =
    options.format === 'json'
      ? `${JSON.stringify(document, null, 2)}\n`
      : yamlModule().stringify(document, { indent: 2, lineWidth: 0, aliasDuplicateObjects: false });
  return { text, diagnostics: [] };
}

const SERVER_ORDER = [
  'type',
  'command',
  'args',
  'env',
  'cwd',
  'envFile',
  'url',
  'headers',
  'enabled',
  'lazy',
  'trusted',
  'timeouts',
  'retry',
  'toolsTtlMs',
  'tools',
  'oauth',
  'restart',
  'maxInFlight',
  'maxQueue',
  'secret',
];

const GATEWAY_ORDER = [
  'host',
  'port',
  'tokenFile',
  'auth',
  'views',
  'allowedOrigins',
  'allowedHosts',
  'maxSessions',
  'maxBodyBytes',
  'sessionIdleMs',
];

const API_ORDER = ['socket', 'port', 'host', 'tokenFile', 'allowStdioRegistration', 'reflection'];

const DEFAULTS_ORDER = [
  'timeouts',
  'retry',
  'toolsTtlMs',
  'restart',
  'health',
  'naming',
  'maxResultBytes',
  'pins',
];

function toNativeServer(server: ServerConfig): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  const transport = server.transport;
  if (transport.type === 'stdio') {
    entry.command = transport.command;
    if (transport.args.length > 0) entry.args = [...transport.args];
    if (Object.keys(transport.env).length > 0) entry.env = { ...transport.env };
    if (transport.cwd !== undefined) entry.cwd = transport.cwd;
    if (transport.envFile !== undefined) entry.envFile = transport.envFile;
  } else {
    entry.url = transport.url;
    if (Object.keys(transport.headers).length > 0) entry.headers = { ...transport.headers };
    if (inferTransportType({ url: transport.url }) !== transport.type) entry.type = transport.type;
  }
  if (!server.enabled) entry.enabled = false;
  for (const key of SERVER_SETTINGS) if (server[key] !== undefined) entry[key] = server[key];
  if (server.secretKeys !== undefined) entry.secret = [...server.secretKeys];
  return mergeExtra(orderKeys(entry, SERVER_ORDER), server.extra);
}

function toNativeInput(input: InputConfig): Record<string, unknown> {
  return orderKeys({ ...input }, ['id', 'type', 'description', 'password', 'default', 'options']);
}

function orderKeys<T extends object>(value: T, order: readonly string[]): Record<string, unknown> {
  const record = value as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const key of order) if (record[key] !== undefined) result[key] = record[key];
  for (const [key, item] of Object.entries(record))
    if (!order.includes(key) && item !== undefined) result[key] = item;
  return result;
}

/** Puts kept unknown keys back: nested objects merge, and known values win over kept ones. */
function mergeExtra(
  entry: Record<string, unknown>,
  extra: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (extra === undefined) return entry;
  const result: Record<string, unknown> = { ...entry };
  for (const [key, value] of Object.entries(extra)) {
    const known = result[key];
    if (known === undefined) result[key] = value;
    else if (isRecord(known) && isRecord(value)) result[key] = mergeExtra(known, value);
  }
  return result;
}
