/**
 * The rules of one native server entry that a schema says poorly: which transport it is
 * (`command` or `url`, a `type` that agrees, the A3S layout with the keys under `transport:`),
 * URLs and their schemes, globs that look like regular expressions, `secret` keys that name
 * nothing, other tools' spellings, delays that contradict each other. Each problem is reported
 * with the key path it was written at.
 */
import type { ConfigDiagnostic, TransportConfig } from '../model.js';
import { transportProperties } from './native-schema.js';
import { isRecord, type KeyPath } from '../parse.js';

/** How the rules report: like `SchemaReport`, the server is derived from the path. */
export type Report = (
  severity: ConfigDiagnostic['severity'],
  kind: string,
  message: string,
  path: KeyPath,
  suggestion?: string,
) => void;

type RemoteType = 'http' | 'sse' | 'websocket';

/** The transport a server without `type` gets: stdio for `command`, else by the URL's scheme. */
export function inferTransportType(server: {
  command?: unknown;
  url?: unknown;
}): TransportConfig['type'] {
  if (server.command !== undefined) return 'stdio';
  return typeof server.url === 'string' && /^wss?:/i.test(literalPrefix(server.url))
    ? 'websocket'
    : 'http';
}

/** The text before the first template reference (`${`), unescaping `$${`. */
function literalPrefix(text: string): string {
  const index = text.replace(/\$\$\{/g, '\0\0\0').indexOf('${');
  return index === -1 ? text : text.slice(0, index);
}

const SCHEMES: Record<RemoteType, readonly string[]> = {
  http: ['http:', 'https:'],
  sse: ['http:', 'https:'],
  websocket: ['ws:', 'wss:', 'http:', 'https:'],
};

/** Keys of a server entry that belong to one kind of transport. */
export const STDIO_KEYS = ['command', 'args', 'env', 'cwd', 'envFile'] as const;
export const REMOTE_KEYS = ['url', 'headers'] as const;

/** Keys of other tools' server entries, and what the native format calls them. */
export const FOREIGN_KEYS: Record<
  string,
  { key: string; hint: string; severity?: ConfigDiagnostic['severity'] } | undefined
> = {
  disabled: { key: 'enabled', hint: '`enabled: false`', severity: 'error' },
  serverUrl: { key: 'url', hint: '`url`' },
  httpUrl: { key: 'url', hint: '`url`' },
  disabledTools: { key: 'tools', hint: '`tools: { block: [...] }`' },
  excludeTools: { key: 'tools', hint: '`tools: { block: [...] }`' },
  includeTools: { key: 'tools', hint: '`tools: { allow: [...] }`' },
  tool_filter: { key: 'tools', hint: '`tools: { allow: [...], block: [...] }`' },
  cache_tools_list: { key: 'toolsTtlMs', hint: '`toolsTtlMs`' },
  timeout: { key: 'timeouts', hint: '`timeouts: { connectMs, requestMs }`' },
};

/** Looks like a regular expression rather than a glob. */
const REGEX_LIKE = /^\^|\$$|\.\*|\.\+|\\[dws.]|\(.*\|.*\)/;

/**
 * The A3S layout (`transport: { type, command, args, url, headers }`) is the same server with its
 * transport keys nested: they are lifted onto the server (a key set at both levels is an error),
 * and `where` gives the path each key was written at, for diagnostics.
 */
export function liftTransport(
  raw: Record<string, unknown>,
  entry: Record<string, unknown>,
  path: KeyPath,
  report: Report,
): {
  raw: Record<string, unknown>;
  entry: Record<string, unknown>;
  where: (key: string) => KeyPath;
} {
  const nested = raw.transport;
  if (!isRecord(nested)) return { raw, entry, where: (key) => [...path, key] };
  const nestedClean = isRecord(entry.transport) ? entry.transport : {};
  const { transport: _raw, ...liftedRaw } = raw;
  const { transport: _entry, ...liftedEntry } = entry;
  const moved = new Set<string>();
  for (const [key, value] of Object.entries(nested)) {
    if (!Object.hasOwn(transportProperties, key)) continue; // unknown: warned about, kept in extra
    if (raw[key] !== undefined) {
      report(
        'error',
        'conflicting-keys',
        `\`${key}\` is set both on the server and under \`transport:\``,
        [...path, 'transport', key],
      );
      continue;
    }
    moved.add(key);
    liftedRaw[key] = value;
    if (nestedClean[key] !== undefined) liftedEntry[key] = nestedClean[key];
  }
  return {
    raw: liftedRaw,
    entry: liftedEntry,
    where: (key) => (moved.has(key) ? [...path, 'transport', key] : [...path, key]),
  };
}

/** The rules across keys of one server; `raw` is as written, `entry` what passed the schema. */
export function checkServer(
  raw: Record<string, unknown>,
  entry: Record<string, unknown>,
  path: KeyPath,
  where: (key: string) => KeyPath,
  report: Report,
): void {
  const hasCommand = raw.command !== undefined;
  const hasUrl = raw.url !== undefined;
  const type = entry.type as TransportConfig['type'] | undefined;
  if (hasCommand && hasUrl) {
    report(
      'error',
      'conflicting-keys',
      'a server has either `command` (stdio) or `url` (http, sse, websocket), not both',
      where('url'),
    );
    return;
  }
  if (!hasCommand && !hasUrl) {
    const nested = type === undefined || type === 'stdio' ? '' : `: type ${type} needs \`url\``;
    report(
      'error',
      'missing-key',
      `missing \`command\` (stdio) or \`url\` (http, sse, websocket)${nested}`,
      path,
    );
    return;
  }
  if (type === 'stdio' && hasUrl) {
    report('error', 'conflicting-keys', 'type stdio needs `command`, found `url`', where('url'));
    return;
  }
  if (type !== undefined && type !== 'stdio' && hasCommand) {
    report(
      'error',
      'conflicting-keys',
      `type ${type} needs \`url\`, found \`command\``,
      where('command'),
    );
    return;
  }
  const effective = type ?? inferTransportType(raw);
  const foreign = effective === 'stdio' ? REMOTE_KEYS : STDIO_KEYS;
  for (const key of foreign)
    if (raw[key] !== undefined)
      report(
        'warning',
        'ignored-key',
        `\`${key}\` does not apply to a ${effective} server (kept, but not used)`,
        where(key),
      );

  if (typeof entry.url === 'string' && effective !== 'stdio')
    checkUrl(entry.url, effective, where('url'), report);
  if (entry.oauth !== undefined && effective === 'stdio')
    report('warning', 'ignored-key', '`oauth` applies to remote servers only', [...path, 'oauth']);

  const tools = entry.tools as { allow?: string[]; block?: string[] } | undefined;
  for (const list of ['allow', 'block'] as const)
    tools?.[list]?.forEach((pattern, index) => {
      if (REGEX_LIKE.test(pattern))
        report(
          'warning',
          'suspicious-glob',
          'this looks like a regular expression; tool filters are globs (`*` any run, `?` one character)',
          [...path, 'tools', list, index],
        );
    });

  for (const key of ['retry', 'restart'] as const) checkDelays(entry[key], [...path, key], report);
  const secret = entry.secret as string[] | undefined;
  if (secret !== undefined) {
    const keys = [
      ...Object.keys(isRecord(entry.env) ? entry.env : {}),
      ...Object.keys(isRecord(entry.headers) ? entry.headers : {}),
    ];
    const lower = new Set(keys.map((key) => key.toLowerCase()));
    secret.forEach((key, index) => {
      if (lower.has(key.toLowerCase())) return;
      report(
        'warning',
        'unknown-secret-key',
        `'${key}' names no key of \`env\` or \`headers\``,
        [...path, 'secret', index],
        closestKeyOf(key, keys),
      );
    });
  }
}

function closestKeyOf(key: string, keys: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  return keys.find((candidate) => candidate.toLowerCase().includes(lower));
}

function checkUrl(url: string, type: RemoteType, path: KeyPath, report: Report): void {
  const prefix = literalPrefix(url);
  const templated = prefix.length !== url.length;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*:)/.exec(prefix)?.[1]?.toLowerCase();
  const schemes = SCHEMES[type];
  const notAbsolute = (): void =>
    report(
      'error',
      'invalid-url',
      `expected an absolute URL such as ${schemes[1]}//host/mcp`,
      path,
    );
  if (!templated) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      notAbsolute();
      return;
    }
    if (parsed.username !== '' || parsed.password !== '')
      report(
        'warning',
        'credentials-in-url',
        'the URL holds credentials; put them in `headers` (and list them in `secret`)',
        path,
      );
  } else if (scheme === undefined && prefix.includes('/') && !prefix.startsWith('/')) {
    notAbsolute();
    return;
  }
  if (scheme !== undefined && !schemes.includes(scheme))
    report(
      'error',
      'invalid-url',
      `the ${type} transport needs a URL starting with ${schemes.map((s) => `${s}//`).join(' or ')}, found ${scheme}//`,
      path,
    );
}

/** `baseDelayMs` above `maxDelayMs` is almost certainly a mistake (the cap wins). */
export function checkDelays(value: unknown, path: KeyPath, report: Report): void {
  if (!isRecord(value)) return;
  const { baseDelayMs, maxDelayMs } = value;
  if (typeof baseDelayMs === 'number' && typeof maxDelayMs === 'number' && baseDelayMs > maxDelayMs)
    report(
      'warning',
      'inconsistent-values',
      `baseDelayMs (${baseDelayMs}) is above maxDelayMs (${maxDelayMs}): every delay will be ${maxDelayMs}`,
      [...path, 'baseDelayMs'],
    );
}
