/**
 * From the normalised (unexpanded) model to what the host runs: each server's templates expanded
 * (expand/expand.ts), its secrets registered (expand/secrets.ts), and a `HostServerDefinition`
 * whose transport is a plain `TransportDefinition`. A server that cannot be resolved (an unset
 * variable, a missing input, an unreadable env file, a bad URL) fails alone, before anything is
 * spawned or sent; the others resolve. Nothing here loads a transport, starts a process or opens a socket: the host
 * builds each transport from its definition when it connects.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve as resolvePath } from 'node:path';
import type { McpClientOptions } from '../client/client-options.js';
import type { RetryPolicy } from '../client/client-options.js';
import { inspectSymbol, type InspectFn } from '../errors/error-json.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { MASK } from '../errors/redact.js';
import type { HostServerDefinition } from '../host/server-definition.js';
import type { Disposable } from '../internal/disposable.js';
import { canonicalJson } from '../state/canonical-json.js';
import { sha256Hex } from '../state/sha256.js';
import { serverIdentity } from '../transport/server-identity.js';
import { maskedDefinition, type TransportDefinition } from '../transport/transport-definition.js';
import { DotenvSyntaxError, parseDotenv } from './expand/dotenv.js';
import { describeField, expandServer, type ExpandedServer } from './expand/expand.js';
import { envInputProvider, InputResolver, type InputProvider } from './expand/input-providers.js';
import type {
  ConfigDiagnostic,
  HostDefaultsConfig,
  McpConfig,
  RetryConfig,
  ServerConfig,
  TimeoutsConfig,
} from './model.js';
import { ResolvedConfig, type ResolvedServer } from './resolved-config.js';
import { resolveRoots } from './resolve-roots.js';
import { isRegistrableSecret, registerSecrets } from '../errors/secret-values.js';
import { argvDiagnostics, fileModeDiagnostics, secretValues } from './expand/secrets.js';

export interface ResolveOptions {
  /** The environment variables are read from (usually `process.env`). */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Gives `${input:id}` values: a provider, or a resolver shared between servers (and reloads) so
   * each input is asked once. Without one, an input reference fails with CONFIG_INPUT_REQUIRED.
   */
  inputs?: InputResolver | InputProvider;
  /** Host-wide defaults (timeouts, retry, toolsTtlMs) a server's own settings override. */
  defaults?: HostDefaultsConfig;
  /**
   * The directory a relative `cwd`, `envFile` or root path is resolved against. Default: the
   * directory of the config file that wrote it (when its source is an absolute path), else
   * `process.cwd()`.
   */
  cwd?: string;
  /** What `~` becomes (default `os.homedir()`). */
  homeDir?: string;
}

export type ResolveServerResult = ResolvedServer | { error: McpHostError };

/** Resolves one server; never throws for a problem of its config (returns `{ error }`). */
export async function resolveServer(
  server: ServerConfig,
  options: ResolveOptions,
): Promise<ResolveServerResult> {
  const inputs =
    typeof options.inputs === 'function'
      ? new InputResolver({ provider: options.inputs })
      : options.inputs;
  const expandedResult = await expandServer(server, {
    env: options.env,
    ...(inputs === undefined ? {} : { inputs }),
    ...(options.homeDir === undefined ? {} : { homeDir: options.homeDir }),
  });
  if (!expandedResult.ok) return { error: expandedResult.error };
  const expanded = expandedResult.server;
  // Registered first, so every later message about this server is masked already.
  const secrets = registerSecrets(secretValues(server, expanded));
  try {
    const transport = await transportDefinition(server, expanded, options, secrets);
    if ('error' in transport) {
      for (const secret of secrets) secret.dispose();
      return transport;
    }
    const diagnostics = [...argvDiagnostics(server, expanded)];
    const client = clientOptions(server, options.defaults);
    const toolsTtlMs = server.toolsTtlMs ?? options.defaults?.toolsTtlMs;
    const identity = await serverIdentity(server.name, transport.definition);
    const definition: HostServerDefinition = {
      name: server.name,
      // Masked in dumps: its env and header values are the server's credentials.
      transport: maskedDefinition(transport.definition),
      enabled: server.enabled,
      identity: identity.key,
      ...(server.lazy === undefined ? {} : { lazy: server.lazy }),
      ...(Object.keys(client).length === 0 ? {} : { client }),
      ...(server.maxInFlight === undefined ? {} : { maxInFlight: server.maxInFlight }),
      ...(server.maxQueue === undefined ? {} : { maxQueue: server.maxQueue }),
      ...(server.tools === undefined ? {} : { tools: { ...server.tools } }),
      ...(server.trusted === undefined ? {} : { trusted: server.trusted }),
      ...(toolsTtlMs === undefined ? {} : { toolsTtlMs }),
      ...(server.restart === undefined ? {} : { restart: { ...server.restart } }),
      ...serverOAuth(expanded, transport.definition, server),
    };
    const restart = server.restart ?? undefined;
    const fingerprint = await sha256Hex(
      canonicalJson({
        transport: transport.definition,
        oauth: expanded.oauth ?? null,
        client,
        lazy: server.lazy ?? null,
        maxInFlight: server.maxInFlight ?? null,
        maxQueue: server.maxQueue ?? null,
        tools: server.tools ?? null,
        trusted: server.trusted ?? null,
        toolsTtlMs: toolsTtlMs ?? null,
        restart: restart ?? null,
      }),
    );
    const resolved: ResolvedServer = {
      definition,
      secrets,
      diagnostics,
      oauth: undefined,
      restart,
      fingerprint,
    };
    // Not enumerable: `util.inspect` and `JSON.stringify` of a resolved server never show it.
    Object.defineProperty(resolved, 'oauth', { value: expanded.oauth, enumerable: false });
    return resolved;
  } catch (error) {
    for (const secret of secrets) secret.dispose();
    throw error;
  }
}

type TransportResult = { definition: TransportDefinition } | { error: McpHostError };

async function transportDefinition(
  server: ServerConfig,
  expanded: ExpandedServer,
  options: ResolveOptions,
  secrets: Disposable[],
): Promise<TransportResult> {
  const t = expanded.transport;
  const invalid = (path: string[], problem: string): { error: McpHostError } => ({
    error: new McpHostError(
      'CONFIG_INVALID',
      `not started: ${describeField(server.source, path)}: ${problem}`,
      { serverName: server.name, details: { file: server.source.file } },
    ),
  });
  if (t.type !== 'stdio') {
    let url: URL;
    try {
      url = new URL(t.url);
    } catch {
      return invalid(['url'], 'not a valid absolute URL');
    }
    const allowed = t.type === 'websocket' ? ['ws:', 'wss:'] : ['http:', 'https:'];
    if (!allowed.includes(url.protocol))
      return invalid(['url'], `a ${t.type} server needs a ${allowed.join(' or ')} URL`);
    return { definition: { type: t.type, url: t.url, headers: { ...t.headers } } };
  }
  if (t.command.trim() === '') return invalid(['command'], 'the command is empty');
  const base =
    options.cwd ?? (isAbsolute(server.source.file) ? dirname(server.source.file) : process.cwd());
  const env: Record<string, string> = {};
  if (t.envFile !== undefined) {
    const file = resolvePath(base, t.envFile);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return invalid(
        ['envFile'],
        `cannot read the env file ${file}${typeof code === 'string' ? ` (${code})` : ''}`,
      );
    }
    let values: Record<string, string>;
    try {
      values = parseDotenv(text);
    } catch (error) {
      if (!(error instanceof DotenvSyntaxError)) throw error;
      return invalid(['envFile'], `${file}: ${error.message}`);
    }
    secrets.push(...registerSecrets(Object.values(values).filter(isRegistrableSecret)));
    Object.assign(env, values);
  }
  Object.assign(env, t.env); // `env` wins over the env file
  return {
    definition: {
      type: 'stdio',
      command: t.command,
      args: [...t.args],
      env,
      ...(t.cwd === undefined ? {} : { cwd: resolvePath(base, t.cwd) }),
    },
  };
}

/**
 * The host's OAuth settings of an `http` or `sse` server with an `oauth:` section (an empty one
 * turns OAuth on with discovery and dynamic registration); none for other servers.
 */
function serverOAuth(
  expanded: ExpandedServer,
  transport: TransportDefinition,
  server: ServerConfig,
): Pick<HostServerDefinition, 'oauth'> {
  const o = expanded.oauth;
  if (o === undefined || (transport.type !== 'http' && transport.type !== 'sse')) return {};
  const base = isAbsolute(server.source.file) ? dirname(server.source.file) : process.cwd();
  const oauth: NonNullable<HostServerDefinition['oauth']> = {
    ...(o.grant === undefined ? {} : { grant: o.grant }),
    ...(o.clientId === undefined ? {} : { clientId: o.clientId }),
    ...(o.clientSecret === undefined ? {} : { clientSecret: o.clientSecret }),
    ...(o.privateKeyFile === undefined
      ? {}
      : { privateKeyFile: resolvePath(base, o.privateKeyFile) }),
    ...(o.privateKeyAlg === undefined ? {} : { privateKeyAlg: o.privateKeyAlg }),
    ...(o.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: o.clientMetadataUrl }),
    ...(o.scopes === undefined ? {} : { scopes: [...o.scopes] }),
    ...(o.redirectUri === undefined ? {} : { redirectUri: o.redirectUri }),
    ...(o.authorizationServer === undefined ? {} : { authorizationServer: o.authorizationServer }),
  };
  // Its JSON and `inspect` show the client secret masked (reading the field gives the value).
  const shown = (): Record<string, unknown> =>
    oauth.clientSecret === undefined ? { ...oauth } : { ...oauth, clientSecret: MASK };
  Object.defineProperties(oauth, {
    toJSON: { value: shown, enumerable: false },
    [inspectSymbol]: {
      value: (_depth: number, options: object, inspect: InspectFn) => inspect(shown(), options),
      enumerable: false,
    },
  });
  return { oauth };
}

type ClientSettings = NonNullable<HostServerDefinition['client']>;

/** Timeouts and retries: the server's own, field by field over the host-wide defaults. */
export function clientOptions(
  server: ServerConfig,
  defaults: HostDefaultsConfig | undefined,
): ClientSettings {
  const timeouts: TimeoutsConfig = { ...defaults?.timeouts, ...server.timeouts };
  const client: Partial<Pick<McpClientOptions, keyof ClientSettings>> = {};
  if (timeouts.connectMs !== undefined) client.connectTimeoutMs = timeouts.connectMs;
  if (timeouts.requestMs !== undefined) client.requestTimeoutMs = timeouts.requestMs;
  if (timeouts.discoverMs !== undefined) client.discoverTimeoutMs = timeouts.discoverMs;
  const retry = mergeRetry(defaults?.retry, server.retry);
  if (retry !== undefined) client.retry = retry;
  return client;
}

function mergeRetry(
  defaults: RetryConfig | false | undefined,
  own: RetryConfig | false | undefined,
): RetryPolicy | false | undefined {
  if (own === false) return false;
  if (own === undefined) return defaults === undefined ? undefined : defaults;
  if (defaults === false || defaults === undefined) return { ...own };
  return { ...defaults, ...own };
}

export interface ResolveConfigOptions extends Omit<ResolveOptions, 'defaults'> {
  /**
   * Gives `${input:id}` values (asked once per id for the whole config). Default: the
   * `MCP_HOST_INPUTS` JSON of `env`, non-interactive (the CLI adds a TTY prompt).
   */
  inputs?: InputResolver | InputProvider;
  /** Warn about world-readable config files holding literal secrets (default true). */
  checkFileModes?: boolean;
}

/**
 * Resolves every server of a config, one after the other (so prompts come in config order): the
 * ones that resolve become `host.servers`, each failure is kept in `errors` under its server's
 * name and fails nothing else. Dispose the result when the host is closed.
 */
export async function resolveConfig(
  config: McpConfig,
  options: ResolveConfigOptions,
): Promise<ResolvedConfig> {
  const inputs =
    options.inputs instanceof InputResolver
      ? options.inputs
      : new InputResolver({
          inputs: config.inputs ?? [],
          provider: options.inputs ?? envInputProvider({ env: options.env }),
        });
  const servers = new Map<string, ResolvedServer>();
  const errors = new Map<string, McpHostError>();
  const diagnostics: ConfigDiagnostic[] = [];
  try {
    for (const server of config.servers) {
      const result = await resolveServer(server, {
        ...options,
        inputs,
        ...(config.defaults === undefined ? {} : { defaults: config.defaults }),
      });
      if ('error' in result) {
        errors.set(server.name, result.error);
        diagnostics.push({
          severity: 'error',
          kind: diagnosticKind(result.error),
          message: result.error.message,
          server: server.name,
          location: server.source,
        });
      } else {
        servers.set(server.name, result);
        diagnostics.push(...result.diagnostics);
      }
    }
    if (options.checkFileModes !== false) diagnostics.push(...(await fileModeDiagnostics(config)));
  } catch (error) {
    for (const server of servers.values()) for (const secret of server.secrets) secret.dispose();
    throw error;
  }
  const roots =
    config.roots === undefined
      ? undefined
      : resolveRoots(config.roots, {
          ...(options.homeDir === undefined ? {} : { homeDir: options.homeDir }),
          ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        });
  return new ResolvedConfig({ config, servers, errors, diagnostics, roots });
}

/**
 * A resolver for hot reload (`ConfigReloader`'s `resolve`): each call resolves one server with
 * the given config's `defaults` and `inputs`, through one `InputResolver` kept for the resolver's
 * life, so an input answered once is not asked again on a later reload. (World-readable files are
 * checked per config: call `fileModeDiagnostics(config)` where the config is loaded.)
 */
export function createServerResolver(
  options: Omit<ResolveConfigOptions, 'checkFileModes'>,
): (server: ServerConfig, config: McpConfig) => Promise<ResolveServerResult> {
  const inputs =
    options.inputs instanceof InputResolver
      ? options.inputs
      : new InputResolver({ provider: options.inputs ?? envInputProvider({ env: options.env }) });
  return (server, config) => {
    inputs.declare(config.inputs ?? []);
    return resolveServer(server, {
      ...options,
      inputs,
      ...(config.defaults === undefined ? {} : { defaults: config.defaults }),
    });
  };
}

function diagnosticKind(error: McpHostError): string {
  if (error.code === 'CONFIG_VARIABLE_UNSET') return 'unset-variable';
  if (error.code === 'CONFIG_INPUT_REQUIRED') return 'input-required';
  return 'invalid-value';
}
