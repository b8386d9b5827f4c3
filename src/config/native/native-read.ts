/**
 * Reads the native format (`mcp.yaml` / `mcp.json`, see docs/config.md) into the normalised model.
 * Never throws: every problem is a diagnostic with file, line, column and key path. A problem
 * inside `servers.<name>` fails only that server (it is left out of `config.servers`); a problem
 * anywhere else (syntax, the top level, `defaults`, `inputs`) has no `server` and fails the file.
 *
 * Strings are kept as written: the native format uses the model's canonical template grammar
 * (`${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${input:id}`, `$${`), expanded later per server.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import { configServerKeyProblems } from '../server-key-problems.js';
import { expandableFields } from '../expand/expand.js';
import type {
  ConfigDiagnostic,
  InputConfig,
  McpConfig,
  ServerConfig,
  SourceLocation,
  TransportConfig,
  ViewConfig,
} from '../model.js';
import { SERVER_SETTINGS } from '../model.js';
import { nativeSchema } from './native-schema.js';
import {
  checkDelays,
  checkServer,
  FOREIGN_KEYS,
  inferTransportType,
  liftTransport,
  REMOTE_KEYS,
  STDIO_KEYS,
  type Report,
} from './native-rules.js';
import { type KeyPath, type TextPosition, isRecord } from '../parse.js';
import { checkAgainstSchema } from './check-against-schema.js';
import { readNativeRoots } from './native-roots.js';
import { readNativeGateway } from './native-gateway.js';
import { readNativeState } from './native-state.js';

import { parseTemplate } from '../expand/template.js';

/** What the reader needs of a parsed file (`parseConfigText` returns it; a plain `{ value }` works). */
export interface NativeDocument {
  value: unknown;
  locate?: (path: KeyPath) => TextPosition | undefined;
  locateKey?: (path: KeyPath) => TextPosition | undefined;
  /** Syntax diagnostics of the parse, passed through. */
  diagnostics?: readonly ConfigDiagnostic[];
}

export interface NativeReadResult {
  config: McpConfig;
  diagnostics: ConfigDiagnostic[];
}

export function readNativeConfig(document: NativeDocument, file: string): NativeReadResult {
  // Parse errors (syntax, duplicate keys) fail the file before anything is read.
  const diagnostics: ConfigDiagnostic[] = [...(document.diagnostics ?? [])];
  const config: McpConfig = { servers: [], files: [{ file, dialect: 'mcp-host' }] };
  const location = (path: KeyPath, key = false): SourceLocation => {
    const position = key
      ? (document.locateKey ?? document.locate)?.(path)
      : document.locate?.(path);
    return {
      file,
      dialect: 'mcp-host',
      path: [...path],
      ...(position === undefined ? {} : { line: position.line, column: position.column }),
    };
  };
  const report: Report = (severity, kind, message, path, suggestion) => {
    const server = path[0] === 'servers' && typeof path[1] === 'string' ? path[1] : undefined;
    const key = path[path.length - 1];
    const foreign =
      kind === 'unknown-key' && path.length === 3 && server !== undefined && typeof key === 'string'
        ? Object.hasOwn(FOREIGN_KEYS, key)
          ? FOREIGN_KEYS[key]
          : undefined
        : undefined;
    if (foreign !== undefined) {
      // Another tool's spelling: say what mcp.yaml calls it (and fail the server where ignoring
      // the key would start something the file meant to keep off).
      severity = foreign.severity ?? severity;
      kind = foreign.severity === 'error' ? 'foreign-key' : kind;
      message = `'${key}' is how other tools say it; mcp.yaml says ${foreign.hint}`;
      suggestion = foreign.key;
    }
    diagnostics.push({
      severity,
      kind,
      message,
      ...(server === undefined ? {} : { server }),
      // Unknown and misspelt keys point at the key; everything else at the value.
      location: location(
        path,
        kind === 'unknown-key' || kind === 'invalid-key' || kind === 'foreign-key',
      ),
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  };

  if (diagnostics.some((d) => d.severity === 'error')) return { config, diagnostics };
  const root = document.value;
  if (root === undefined || root === null) {
    report('warning', 'empty-file', 'the file is empty: no servers', []);
    return { config, diagnostics };
  }
  if (!isRecord(root)) {
    report('error', 'invalid-type', 'expected a mapping with a `servers:` key at the top', []);
    return { config, diagnostics };
  }

  const top: Record<string, unknown> = { ...root };
  // `servers:` with nothing under it (a file being written) is no servers, not an error.
  for (const key of [
    'servers',
    'defaults',
    'inputs',
    'views',
    'roots',
    'gateway',
    'api',
    'state',
  ] as const)
    if (top[key] === null) {
      report('warning', 'empty-value', `\`${key}:\` is empty`, [key]);
      delete top[key];
    }
  const checked = checkAgainstSchema(top, nativeSchema, [], report);
  const clean = (checked.value ?? {}) as Record<string, unknown>;
  const extra = checked.extra ?? {};

  if (typeof clean.$schema === 'string') extra.$schema = clean.$schema;
  // Unknown keys inside a view, `gateway:`, `api:` or `state:` are warned about and dropped (not
  // written back).
  const {
    servers: serverExtras,
    views: _viewExtras,
    gateway: _gatewayExtras,
    api: _apiExtras,
    state: _stateExtras,
    ...topExtra
  } = extra;
  if (Object.keys(topExtra).length > 0) config.extra = topExtra;
  if (isRecord(clean.defaults) && Object.keys(clean.defaults).length > 0)
    config.defaults = clean.defaults;
  for (const key of ['retry', 'restart'] as const)
    checkDelays(config.defaults?.[key], ['defaults', key], report);
  if (clean.inputs !== undefined) config.inputs = readInputs(clean.inputs as InputConfig[], report);
  if (isRecord(clean.views)) {
    const views: Record<string, ViewConfig> = {};
    for (const [name, entry] of Object.entries(clean.views))
      if (isRecord(entry))
        Object.defineProperty(views, name, {
          value: { ...entry, source: location(['views', name], true) },
          enumerable: true,
          writable: true,
          configurable: true,
        });
    if (Object.keys(views).length > 0) config.views = views;
  }

  if (isRecord(clean.gateway)) {
    const gateway = readNativeGateway(clean.gateway, location(['gateway'], true), report);
    if (gateway !== undefined) config.gateway = gateway;
  }
  if (isRecord(clean.api)) config.api = { ...clean.api, source: location(['api'], true) };
  if (isRecord(clean.state)) {
    const state = readNativeState(clean.state, location(['state'], true), report);
    if (state !== undefined) config.state = state;
  }

  if (Array.isArray(clean.roots)) {
    const roots = readNativeRoots(clean.roots, location, report);
    if (roots.length > 0) config.roots = roots;
  }

  const rawServers = top.servers;
  if (!Object.hasOwn(top, 'servers') && !diagnostics.some((d) => d.kind === 'empty-value'))
    report('warning', 'missing-key', 'no `servers:` key: no servers', []);
  if (!isRecord(rawServers)) return { config, diagnostics };
  const cleanServers = (clean.servers ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const extras = isRecord(serverExtras) ? serverExtras : {};

  for (const [name, raw] of Object.entries(rawServers)) {
    const path: KeyPath = ['servers', name];
    const entry = cleanServers[name];
    if (!isRecord(raw) || entry === undefined) continue; // the type error is reported
    const lifted = liftTransport(raw, entry, path, report);
    checkServer(lifted.raw, lifted.entry, path, lifted.where, report);
    if (diagnostics.some((d) => d.severity === 'error' && d.server === name)) continue;
    const serverExtra = extras[name];
    const server = toServerConfig(
      name,
      lifted.entry,
      isRecord(serverExtra) ? serverExtra : undefined,
      location(path, true),
      report,
    );
    // Templates are checked here, where the line and column are known; expanding them waits.
    let templatesOk = true;
    for (const field of expandableFields(server)) {
      try {
        parseTemplate(field.template);
      } catch (error) {
        if (!(error instanceof McpHostError)) throw error;
        report('error', 'invalid-template', error.message, [...path, ...field.path]);
        templatesOk = false;
      }
    }
    if (templatesOk) config.servers.push(server);
  }

  const naming = config.defaults?.naming;
  let problems: ReturnType<typeof configServerKeyProblems> = [];
  try {
    problems = configServerKeyProblems(Object.keys(rawServers), naming);
  } catch {
    // Invalid naming options: reported by the schema check or by the host itself.
  }
  for (const problem of problems) {
    report('error', 'invalid-server-name', problem.message, ['servers', problem.server]);
    config.servers = config.servers.filter((server) => server.name !== problem.server);
  }
  return { config, diagnostics: byPosition(diagnostics) };
}

function toServerConfig(
  name: string,
  entry: Record<string, unknown>,
  extra: Record<string, unknown> | undefined,
  source: SourceLocation,
  report: Report,
): ServerConfig {
  const path: KeyPath = ['servers', name];
  const type = (entry.type as TransportConfig['type'] | undefined) ?? inferTransportType(entry);
  const strings = (key: 'env' | 'headers'): Record<string, string> => {
    const map = (entry[key] ?? {}) as Record<string, string | number | boolean>;
    return Object.fromEntries(
      Object.entries(map).map(([k, v]) => {
        if (typeof v === 'boolean')
          report(
            'warning',
            'coerced-value',
            `true/false became the text '${String(v)}'; quote it to say so`,
            [...path, key, k],
          );
        return [k, String(v)];
      }),
    );
  };
  let transport: TransportConfig;
  if (type === 'stdio') {
    transport = {
      type,
      command: entry.command as string,
      args: ((entry.args ?? []) as (string | number)[]).map(String),
      env: strings('env'),
      ...(entry.cwd === undefined ? {} : { cwd: entry.cwd as string }),
      ...(entry.envFile === undefined ? {} : { envFile: entry.envFile as string }),
    };
  } else {
    transport = { type, url: entry.url as string, headers: strings('headers') };
  }
  const server: ServerConfig = {
    name,
    transport,
    enabled: (entry.enabled as boolean | undefined) ?? true,
    source,
  };
  const target = server as unknown as Record<string, unknown>;
  for (const key of SERVER_SETTINGS) if (entry[key] !== undefined) target[key] = entry[key];
  if (entry.secret !== undefined) server.secretKeys = entry.secret as string[];
  // Keys that do not apply to this transport are kept too (warned about in checkServer).
  const ignored = Object.fromEntries(
    (type === 'stdio' ? REMOTE_KEYS : STDIO_KEYS)
      .filter((key) => entry[key] !== undefined)
      .map((key) => [key, entry[key]]),
  );
  const kept = { ...ignored, ...extra };
  if (Object.keys(kept).length > 0) server.extra = kept;
  // Field order as in the model, so JSON output is stable.
  const { source: at, extra: more, ...rest } = server;
  return { ...rest, ...(more === undefined ? {} : { extra: more }), source: at };
}

function readInputs(inputs: InputConfig[], report: Report): InputConfig[] {
  const seen = new Set<string>();
  inputs.forEach((input, index) => {
    if (seen.has(input.id))
      report('error', 'duplicate-input', `the input '${input.id}' is declared twice`, [
        'inputs',
        index,
        'id',
      ]);
    seen.add(input.id);
    if (input.type === 'pickString' && (input.options ?? []).length === 0)
      report('error', 'missing-key', 'a pickString input needs `options`', ['inputs', index]);
  });
  return inputs;
}

/** Diagnostics in the order of the text (a stable sort: ties keep the order they were found in). */
function byPosition(diagnostics: ConfigDiagnostic[]): ConfigDiagnostic[] {
  const key = (d: ConfigDiagnostic) => [d.location?.line ?? 0, d.location?.column ?? 0] as const;
  return diagnostics.sort((a, b) => {
    const [la, ca] = key(a);
    const [lb, cb] = key(b);
    return la - lb || ca - cb;
  });
}
