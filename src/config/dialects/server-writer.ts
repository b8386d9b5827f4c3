/**
 * Normalised servers printed as the entries of a foreign dialect. What the target cannot express
 * is reported, never silently dropped:
 * - an `error` leaves the whole server out: a transport the target has no way to say, a template
 *   it cannot write (see grammars.ts), a disabled server (no foreign dialect has a disable flag
 *   that its tool honours);
 * - a `warning` leaves one setting out and writes the server: host settings (timeouts, retries,
 *   restart policy, …), tool filters or OAuth settings where the target has none, `extra` keys
 *   that came from another dialect.
 */
import { aboutServer } from '../../errors/mcp-host-error.js';
import type {
  ConfigDiagnostic,
  ConfigDialect,
  McpConfig,
  ServerConfig,
  TransportConfig,
} from '../model.js';
import { SERVER_SETTINGS } from '../model.js';
import { parseCanonical } from './canonical-template.js';
import { literalGrammar, writeTemplate, type DialectGrammar } from './grammars.js';
import type { TemplateField } from './server-entry.js';

/** Settings of ServerConfig that only some dialects can write. */
export const HOST_SETTINGS = [
  ...SERVER_SETTINGS,
  'secretKeys',
] as const satisfies readonly (keyof ServerConfig)[];

export type HostSetting = (typeof HOST_SETTINGS)[number];

/** Collects the diagnostics of one server while it is written. */
export class ServerWriter {
  /** False once an error left the server out. */
  ok = true;

  constructor(
    readonly server: ServerConfig,
    readonly dialect: ConfigDialect,
    readonly label: string,
    private readonly diagnostics: ConfigDiagnostic[],
  ) {}

  report(severity: ConfigDiagnostic['severity'], kind: string, message: string): void {
    if (severity === 'error') this.ok = false;
    this.diagnostics.push({
      severity,
      kind,
      message: aboutServer(
        this.server.name,
        `${this.label}: ${message}${severity === 'error' ? ' (server left out)' : ''}`,
      ),
      server: this.server.name,
      location: this.server.source,
    });
  }

  /** A canonical template in the target's grammar (`undefined` after an error). */
  template(
    canonical: string,
    grammar: DialectGrammar | undefined,
    where: string,
  ): string | undefined {
    const parsed = parseCanonical(canonical);
    if (!parsed.ok) {
      this.report('error', 'invalid-template', `${where}: ${parsed.message}`);
      return undefined;
    }
    const written = writeTemplate(grammar ?? literalGrammar(this.label), parsed.value);
    for (const problem of written.problems)
      this.report(problem.severity, problem.kind, `${where}: ${problem.message}`);
    return written.ok ? written.text : undefined;
  }

  map(
    values: Record<string, string>,
    grammar: DialectGrammar | undefined,
    where: string,
  ): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(values)) {
      const text = this.template(value, grammar, `${where}.${key}`);
      if (text !== undefined) out[key] = text;
    }
    return out;
  }
}

export interface EntryWriteRules {
  dialect: ConfigDialect;
  label: string;
  transports: readonly TransportConfig['type'][];
  /** The `type` value written for a transport; `undefined` writes none. */
  typeValue(type: TransportConfig['type']): string | undefined;
  grammar(field: TemplateField): DialectGrammar | undefined;
  stdio: { cwd: boolean; envFile: boolean };
  /** Host settings the dialect writes itself in `writeOwn`. */
  ownSettings: readonly HostSetting[];
  writeOwn?(writer: ServerWriter, out: Record<string, unknown>): void;
}

/** One server as an entry; `undefined` when it was left out (an error says why). */
export function writeServerEntry(
  server: ServerConfig,
  rules: EntryWriteRules,
  diagnostics: ConfigDiagnostic[],
): Record<string, unknown> | undefined {
  const w = new ServerWriter(server, rules.dialect, rules.label, diagnostics);
  if (!server.enabled) {
    w.report('error', 'not-expressible', `it is disabled and ${rules.label} has no disable flag`);
    return undefined;
  }
  const t = server.transport;
  if (!rules.transports.includes(t.type)) {
    w.report('error', 'not-expressible', `${rules.label} has no ${t.type} servers`);
    return undefined;
  }
  const out: Record<string, unknown> = {};
  const type = rules.typeValue(t.type);
  if (type !== undefined) out.type = type;
  if (t.type === 'stdio') {
    out.command = w.template(t.command, rules.grammar('command'), 'command');
    out.args = t.args.map((arg, i) => w.template(arg, rules.grammar('args'), `args[${i}]`));
    if (Object.keys(t.env).length > 0) out.env = w.map(t.env, rules.grammar('env'), 'env');
    for (const key of ['cwd', 'envFile'] as const) {
      const value = t[key];
      if (value === undefined) continue;
      if (rules.stdio[key]) out[key] = w.template(value, rules.grammar(key), key);
      else w.report('warning', 'not-expressible', `${rules.label} has no "${key}"; left out`);
    }
  } else {
    out.url = w.template(t.url, rules.grammar('url'), 'url');
    if (Object.keys(t.headers).length > 0)
      out.headers = w.map(t.headers, rules.grammar('headers'), 'headers');
  }
  rules.writeOwn?.(w, out);
  for (const setting of HOST_SETTINGS)
    if (server[setting] !== undefined && !rules.ownSettings.includes(setting))
      w.report(
        'warning',
        'not-expressible',
        `${rules.label} cannot express "${setting}"; left out`,
      );
  writeExtra(w, out);
  return w.ok ? out : undefined;
}

/** `extra` goes back only into the dialect it came from, without overwriting written keys. */
export function writeExtra(w: ServerWriter, out: Record<string, unknown>): void {
  const extra = w.server.extra;
  if (extra === undefined || Object.keys(extra).length === 0) return;
  if (w.server.source.dialect !== w.dialect) {
    w.report(
      'warning',
      'not-expressible',
      `keys from ${w.server.source.dialect} left out: ${Object.keys(extra).join(', ')}`,
    );
    return;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (!(key in out)) out[key] = value;
    else if (isPlainObject(out[key]) && isPlainObject(value)) out[key] = { ...value, ...out[key] };
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The servers of a config as one object by name, in order. */
export function writeServerMap(
  config: McpConfig,
  rules: EntryWriteRules,
  diagnostics: ConfigDiagnostic[],
): Record<string, unknown> {
  const servers: Record<string, unknown> = {};
  for (const server of config.servers) {
    const entry = writeServerEntry(server, rules, diagnostics);
    if (entry !== undefined) servers[server.name] = entry;
  }
  return servers;
}

/**
 * Top-level settings a foreign dialect cannot hold (host defaults, roots; inputs unless `inputs`), and
 * top-level extras (written back into the same dialect only).
 */
export function writeTopLevel(
  config: McpConfig,
  dialect: ConfigDialect,
  label: string,
  out: Record<string, unknown>,
  diagnostics: ConfigDiagnostic[],
  { inputs = false }: { inputs?: boolean } = {},
): void {
  const warn = (message: string): void => {
    diagnostics.push({
      severity: 'warning',
      kind: 'not-expressible',
      message: `${label}: ${message}`,
    });
  };
  if (config.defaults !== undefined && Object.keys(config.defaults).length > 0)
    warn('host-wide defaults cannot be expressed; left out');
  if (config.roots !== undefined && config.roots.length > 0)
    warn('roots cannot be expressed; left out');
  if (!inputs && config.inputs !== undefined && config.inputs.length > 0)
    warn(`inputs cannot be expressed; left out: ${config.inputs.map((i) => i.id).join(', ')}`);
  const extra = config.extra;
  if (extra === undefined || Object.keys(extra).length === 0) return;
  const sameDialect = config.files.length > 0 && config.files.every((f) => f.dialect === dialect);
  if (!sameDialect) {
    warn(`top-level keys from another dialect left out: ${Object.keys(extra).join(', ')}`);
    return;
  }
  for (const [key, value] of Object.entries(extra)) if (!(key in out)) out[key] = value;
}

/** JSON with a 2-space indent and a final newline. */
export function toJsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * `config` as the `mcpServers` JSON file of the dialect `rules` describe (Claude Code, Cursor):
 * `{ "mcpServers": { name: entry } }`, the entries by the dialect's rules, then what the dialect
 * cannot say at the top level, as diagnostics.
 */
export function writeMcpServersJson(
  config: McpConfig,
  rules: EntryWriteRules,
): { text: string; diagnostics: ConfigDiagnostic[] } {
  const diagnostics: ConfigDiagnostic[] = [];
  const out: Record<string, unknown> = {
    mcpServers: writeServerMap(config, rules, diagnostics),
  };
  writeTopLevel(config, rules.dialect, rules.label, out, diagnostics);
  return { text: toJsonText(out), diagnostics };
}
