/**
 * Secrets in configs. Two layers:
 *
 * - **Structural masking** of printed configs (`maskConfig`, `inspect`, `toJSON`): every `env`
 *   value, every `headers` value, `oauth.clientSecret`, the fields named in `secretKeys`, the
 *   `default` of password inputs and `state.postgres.url` show `<masked>` for their literal text; references stay visible
 *   (`Bearer ${GITHUB_TOKEN}` is printed as written: it reveals no value, and says where the value
 *   comes from), while a reference's default is masked. Other strings pass through the redactor
 *   (registered secrets, URL credentials, token shapes) and `--token=…`-style arguments are masked.
 * - **Value registration** with the process-wide redactor (`addSecret`) while a resolved config
 *   is in use, so a value is masked wherever it turns up (a stderr tail, an error, a log line):
 *   what each variable or input reference gave, every env value, every header value (and its
 *   credential without the `Bearer ` scheme), OAuth client secrets, URL user info and credential
 *   query parameters, and the fields named in `secretKeys`. Two exceptions keep messages readable:
 *   the values of well-known non-secret variables (`NON_SECRET_VARIABLES`: HOME, PATH, USER, …)
 *   when they are referenced inside another field, the values of headers that describe the request
 *   (`NON_SECRET_HEADERS`: Accept, Content-Type, User-Agent, …), and trivial values (`true`,
 *   `info`, numbers): all still masked structurally, but not hunted for in every message. The
 *   rule (`isRegistrableSecret`, `NON_SECRET_HEADERS`, `NON_SECRET_VARIABLES`) lives in
 *   errors/secret-values.ts, shared with the transports, which apply it to the `env` and `headers`
 *   they are given directly.
 */
import { stat } from 'node:fs/promises';
import { aboutServer, McpHostError } from '../../errors/mcp-host-error.js';
import { MASK, redact } from '../../errors/redact.js';
import {
  isRegistrableSecret,
  NON_SECRET_HEADERS,
  NON_SECRET_VARIABLES,
  withoutAuthScheme,
} from '../../errors/secret-values.js';
import { formatKeyPath } from '../diagnostics.js';
import { expandableFields, type ExpandedServer, type FieldPath } from './expand.js';
import {
  OAUTH_TEXT_FIELDS,
  type ConfigDiagnostic,
  type McpConfig,
  type ServerConfig,
} from '../model.js';
import { formatTemplate, parseTemplate, type TemplatePart } from './template.js';

/** A literal prefix that is not secret in a credential header (`Bearer `, `Basic `, `Token `). */
const SCHEME_ONLY = /^\s*(?:bearer|basic|token)?\s*$/i;
/** `--api-key=…`, `-token=…`, `password=…`: an argument whose value is a credential. */
const SECRET_ARGUMENT =
  /^(-{0,2}[\w.-]*(?:token|secret|password|passwd|api[_-]?key|apikey|auth|credential)[\w.-]*=)(.+)$/i;
/** A query parameter name whose value is a credential (`api_key`, `access_token`, `sig`, …). */
const CREDENTIAL_QUERY =
  /^(?:key|pwd|auth|sig|session)$|token|secret|passw|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|signature|session[_-]?id/i;
/** `?name=value`, `&name=value` or `;name=value` in a URL (the value may be empty). */
const QUERY_PARAMETER = /([?&;]([^=&#\s]+)=)([^&#\s]*)/g;

/** True when the field at `path` of `server` holds a secret (structurally masked). */
export function isSecretField(server: ServerConfig, path: FieldPath): boolean {
  const [group, key] = path;
  if (group === 'env' || group === 'headers') return true;
  if (group === 'oauth' && key === 'clientSecret') return true;
  return matchesSecretKeys(server, path);
}

function matchesSecretKeys(server: ServerConfig, path: FieldPath): boolean {
  const keys = server.secretKeys;
  if (keys === undefined || keys.length === 0) return false;
  const last = path.at(-1);
  const candidates = [formatKeyPath(path), String(path[0])];
  if (typeof last === 'string') candidates.push(last);
  const lower = new Set(keys.map((key) => key.toLowerCase()));
  return candidates.some((candidate) => lower.has(candidate.toLowerCase()));
}

/** The values to register for an expanded server (see the module comment). */
export function secretValues(server: ServerConfig, expanded: ExpandedServer): string[] {
  const values = new Set<string>();
  for (const field of expanded.fields) {
    for (const reference of field.references) {
      if (reference.value === undefined) continue;
      if (reference.kind === 'variable' && NON_SECRET_VARIABLES.has(reference.name)) continue;
      values.add(reference.value);
    }
    const [group, key] = field.path;
    const describesRequest =
      group === 'headers' &&
      typeof key === 'string' &&
      NON_SECRET_HEADERS.has(key.toLowerCase()) &&
      !matchesSecretKeys(server, field.path);
    if (isSecretField(server, field.path) && !describesRequest) {
      values.add(field.value);
      if (field.path[0] === 'headers') values.add(withoutAuthScheme(field.value));
    }
    if (field.path[0] === 'url') for (const value of urlCredentials(field.value)) values.add(value);
  }
  return [...values].filter(isRegistrableSecret);
}

/**
 * The credentials a URL carries: its password (as written and decoded), its user name (unless
 * `userName: false`: a database's `postgres` would mask every mention of the word) and the value
 * of every credential-looking query parameter. None for text that is not a URL; never throws.
 */
export function urlCredentials(text: string, options: { userName?: boolean } = {}): string[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [];
  }
  const out: string[] = [];
  if (url.password !== '') out.push(url.password, safeDecode(url.password));
  if (url.username !== '' && options.userName !== false) out.push(safeDecode(url.username));
  for (const [name, value] of url.searchParams) if (CREDENTIAL_QUERY.test(name)) out.push(value);
  return out;
}

/**
 * A URL as every command prints it: the user info and the value of every credential-looking query
 * parameter masked, on top of whatever the redactor masks. Works on text that is not a whole URL
 * (one literal part of a template) and never throws.
 */
export function maskUrl(url: string): string {
  return redact(url).replace(
    QUERY_PARAMETER,
    (whole, label: string, name: string, value: string) =>
      value === '' || value === MASK || !CREDENTIAL_QUERY.test(safeDecode(name))
        ? whole
        : `${label}${MASK}`,
  );
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Warnings for secrets in a stdio server's argv, which every local user can read (`ps`): an
 * argument that takes the value of a variable (other than a well-known non-secret one) or an
 * input, or one that looks like a credential (`--token=…`, a known token format, a registered
 * secret). Call it after the server's secrets are registered. Messages name the argument, never
 * its value.
 */
export function argvDiagnostics(
  server: ServerConfig,
  expanded: ExpandedServer,
): ConfigDiagnostic[] {
  const diagnostics: ConfigDiagnostic[] = [];
  for (const field of expanded.fields) {
    if (field.path[0] !== 'args') continue;
    const carried = field.references.filter(
      (r) => r.kind === 'input' || !NON_SECRET_VARIABLES.has(r.name),
    );
    const argument = formatKeyPath(field.path);
    let reason: string | undefined;
    if (carried.length > 0)
      reason = `carries ${carried.map((r) => (r.kind === 'input' ? `\${input:${r.name}}` : `\${${r.name}}`)).join(', ')}`;
    else if (matchesSecretKeys(server, field.path)) reason = 'is marked secret (secretKeys)';
    else if (SECRET_ARGUMENT.test(field.value) || redact(field.value) !== field.value)
      reason = 'looks like a credential';
    if (reason === undefined) continue;
    diagnostics.push({
      severity: 'warning',
      kind: 'secret-in-argv',
      message: aboutServer(
        server.name,
        `${argument} ${reason}; command-line arguments are visible to every local user (ps): pass secrets in env instead`,
      ),
      server: server.name,
      location: { ...server.source, path: [...server.source.path, ...field.path] },
    });
  }
  return diagnostics;
}

/**
 * True when a secret field of the server holds a literal secret: written text (an auth scheme
 * word aside) or a reference's default, that is not trivial (`debug`, `true`, a number) and not in
 * a header that describes the request (`Accept`, ...). `Bearer ${TOKEN}` holds none.
 */
export function hasLiteralSecret(server: ServerConfig): boolean {
  return expandableFields(server).some((slot) => {
    if (!isSecretField(server, slot.path)) return false;
    const [group, key] = slot.path;
    if (
      group === 'headers' &&
      typeof key === 'string' &&
      NON_SECRET_HEADERS.has(key.toLowerCase()) &&
      !matchesSecretKeys(server, slot.path)
    )
      return false;
    let parts: TemplatePart[];
    try {
      parts = parseTemplate(slot.template);
    } catch {
      return isRegistrableSecret(slot.template);
    }
    const literal = withoutAuthScheme(
      parts.map((part) => (part.kind === 'text' ? part.text : ' ')).join(''),
    ).trim();
    return (
      isRegistrableSecret(literal) ||
      parts.some(
        (part) =>
          part.kind === 'variable' &&
          part.fallback !== undefined &&
          isRegistrableSecret(part.fallback.text),
      )
    );
  });
}

/**
 * Warnings for config files that every local user can read (mode & 0o004) and that hold literal
 * secrets (in env, headers, `oauth.clientSecret` or `secretKeys` fields). POSIX only.
 */
export async function fileModeDiagnostics(config: McpConfig): Promise<ConfigDiagnostic[]> {
  if (process.platform === 'win32') return [];
  const diagnostics: ConfigDiagnostic[] = [];
  for (const { file, dialect } of config.files) {
    const holders = config.servers.filter((s) => s.source.file === file && hasLiteralSecret(s));
    if (holders.length === 0) continue;
    let mode: number;
    try {
      mode = (await stat(file)).mode;
    } catch {
      continue;
    }
    if ((mode & 0o004) === 0) continue;
    const names = holders.map((s) => `'${s.name}'`).join(', ');
    diagnostics.push({
      severity: 'warning',
      kind: 'world-readable-secrets',
      message: `${file} is readable by every user (mode ${(mode & 0o777).toString(8).padStart(4, '0')}) and holds secrets of server ${names}: chmod 600 it, or move the secrets into environment variables`,
      location: { file, dialect, path: [] },
    });
  }
  return diagnostics;
}

export interface MaskOptions {
  /** Show everything as written (an explicit opt-in: the output then holds secrets). */
  reveal?: boolean;
}

/**
 * A copy of `config` that is safe to print or log (see the module comment); with
 * `{ reveal: true }`, an unmasked copy. Still unexpanded: no variable is read.
 */
export function maskConfig(config: McpConfig, options: MaskOptions = {}): McpConfig {
  const copy = structuredClone(config);
  if (options.reveal === true) return copy;
  copy.servers = copy.servers.map(maskServer);
  copy.inputs = copy.inputs?.map((input) =>
    input.password === true && input.default !== undefined ? { ...input, default: MASK } : input,
  );
  const postgres = copy.state?.postgres;
  // The connection string holds a password: its literal text is masked, references stay.
  if (postgres !== undefined) postgres.url = maskTemplateWith(postgres.url, true, redact);
  if (copy.extra !== undefined) copy.extra = redactDeep(copy.extra) as Record<string, unknown>;
  return copy;
}

/** A masked copy of one server (see `maskConfig`). */
export function maskServer(server: ServerConfig): ServerConfig {
  const copy = structuredClone(server);
  const t = copy.transport;
  const mask = (path: FieldPath, template: string): string =>
    maskTemplateWith(
      template,
      isSecretField(server, path),
      path[0] === 'url' ? maskUrl : path[0] === 'args' ? maskArgument : redact,
    );
  if (t.type === 'stdio') {
    t.command = mask(['command'], t.command);
    t.args = t.args.map((arg, i) => mask(['args', i], arg));
    t.env = Object.fromEntries(Object.entries(t.env).map(([k, v]) => [k, mask(['env', k], v)]));
    if (t.cwd !== undefined) t.cwd = mask(['cwd'], t.cwd);
    if (t.envFile !== undefined) t.envFile = mask(['envFile'], t.envFile);
  } else {
    t.url = mask(['url'], t.url);
    t.headers = Object.fromEntries(
      Object.entries(t.headers).map(([k, v]) => [k, mask(['headers', k], v)]),
    );
  }
  const o = copy.oauth;
  if (o !== undefined) {
    for (const key of OAUTH_TEXT_FIELDS) {
      const value = o[key];
      if (value !== undefined) o[key] = mask(['oauth', key], value);
    }
    if (o.scopes !== undefined) o.scopes = o.scopes.map((s, i) => mask(['oauth', 'scopes', i], s));
  }
  if (copy.extra !== undefined) copy.extra = redactDeep(copy.extra) as Record<string, unknown>;
  return copy;
}

/**
 * Masks one template: in a secret field, its literal text (an auth scheme word excepted) and the
 * defaults of its references; elsewhere, whatever the redactor masks, plus the value of a
 * `--token=…`-style argument. References themselves are kept.
 */
export function maskTemplate(template: string, secret: boolean, argument = false): string {
  return maskTemplateWith(template, secret, argument ? maskArgument : redact);
}

function maskArgument(text: string): string {
  return redact(text).replace(SECRET_ARGUMENT, `$1${MASK}`);
}

/** `maskTemplate`, with `maskText` for the literal text of a field that is not secret. */
function maskTemplateWith(
  template: string,
  secret: boolean,
  maskText: (text: string) => string,
): string {
  let parts: TemplatePart[];
  try {
    parts = parseTemplate(template);
  } catch (error) {
    if (!(error instanceof McpHostError)) throw error;
    return secret ? MASK : maskText(template);
  }
  const masked = parts.map((part): TemplatePart => {
    if (part.kind === 'text') {
      if (secret) return SCHEME_ONLY.test(part.text) ? part : { kind: 'text', text: MASK };
      return { kind: 'text', text: maskText(part.text) };
    }
    if (part.kind === 'variable' && part.fallback !== undefined && part.fallback.text !== '')
      return {
        ...part,
        fallback: { ...part.fallback, text: secret ? MASK : redact(part.fallback.text) },
      };
    return part;
  });
  // Adjacent masked text parts read as one.
  return formatTemplate(masked).replaceAll(`${MASK}${MASK}`, MASK);
}

const SECRET_KEY_NAME = /token|secret|password|passwd|api[_-]?key|apikey|auth|credential|cookie/i;

/** Unknown keys kept from a dialect: strings redacted, those under secret-looking keys masked. */
function redactDeep(value: unknown, secret = false): unknown {
  if (typeof value === 'string') return secret && value !== '' ? MASK : redact(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, secret));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, redactDeep(v, secret || SECRET_KEY_NAME.test(k))]),
    );
  return value;
}
