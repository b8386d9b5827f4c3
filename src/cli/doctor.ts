/**
 * `mcp-host doctor`: checks each configured server and says what to do about each problem. Per
 * server, in order, stopping at the first problem: its config entry loaded (a diagnostic that left
 * it out), its variables and inputs resolve (resolveServer, which names every unset variable), its
 * command is found (PATH lookup, before anything is spawned), then one real connect with a bound
 * (the handshake, the era, the tool list), classified: crashed on start (exit code and the masked
 * stderr tail), no answer to the handshake (timeout), unreachable URL (refused, DNS), refused
 * credentials. Servers are checked a few at a time; nothing is restarted or retried.
 *
 * `runDoctor` returns data; `renderDoctor` makes the table; `doctorExitCode` the exit code of the
 * worst finding (1 config, 3 auth or input, 4 unreachable, crashed or hung).
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, resolve as resolvePath } from 'node:path';
import { McpClient } from '../client/mcp-client.js';
import { formatDiagnostic } from '../config/diagnostics.js';
import type { ConfigDiagnostic, McpConfig, ServerConfig } from '../config/model.js';
import { resolveServer } from '../config/resolve-config.js';
import { envInputProvider, type InputProvider } from '../config/input-providers.js';
import { McpHostError, ProcessExitedError, redact, toMcpHostError } from '../errors/index.js';
import type { Disposable } from '../internal/disposable.js';

/** What doctor found about one server. `ok` and `disabled` are not problems. */
export const doctorStatuses = [
  'ok',
  'disabled',
  'config-invalid',
  'variable-unset',
  'input-required',
  'command-not-found',
  'crashed',
  'handshake-timeout',
  'unreachable',
  'needs-auth',
  'failed',
] as const;
export type DoctorStatus = (typeof doctorStatuses)[number];

/** The CLI exit code each status maps to (the worst one is the command's). */
export const DOCTOR_EXIT_CODES: Readonly<Record<DoctorStatus, number>> = {
  ok: 0,
  disabled: 0,
  'config-invalid': 1,
  'variable-unset': 1,
  'command-not-found': 1,
  'input-required': 3,
  'needs-auth': 3,
  crashed: 4,
  'handshake-timeout': 4,
  unreachable: 4,
  failed: 4,
};

export interface DoctorFinding {
  server: string;
  status: DoctorStatus;
  transport: 'stdio' | 'http' | 'sse' | 'websocket' | undefined;
  /** What is wrong, in one sentence (masked). */
  problem?: string;
  /** What to do about it. */
  fix?: string;
  /** Where the server is configured (`file:line:col`). */
  source?: string;
  /** The error code behind a failed check. */
  code?: string;
  /** Unset variables, by name (never a value). */
  variables?: string[];
  exitCode?: number | null;
  /** The last lines a crashed server wrote to stderr, masked. */
  stderrTail?: string;
  era?: string;
  protocolVersion?: string;
  serverInfo?: { name: string; version: string };
  toolCount?: number;
  /** `none`, `headers` (an Authorization-style header), `oauth`; for stdio `n/a`. */
  auth?: 'n/a' | 'none' | 'headers' | 'oauth';
  durationMs: number;
}

export interface DoctorReport {
  servers: DoctorFinding[];
  /** The load's file-level diagnostics and warnings that concern no single server. */
  diagnostics: string[];
  /** The command's exit code: the worst finding's. */
  exitCode: number;
}

export interface DoctorOptions {
  /** Where variables come from (default `process.env`); its `PATH` is searched for commands. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The bound on each connect, handshake and tool listing included (default 10 s). */
  timeoutMs?: number;
  /** Servers checked at once (default 4). */
  concurrency?: number;
  /** Gives `${input:id}` values (default: `MCP_HOST_INPUTS` of `env`, non-interactive). */
  inputs?: InputProvider;
  /** The loader's diagnostics: a server left out by an error is reported as `config-invalid`. */
  diagnostics?: readonly ConfigDiagnostic[];
  /** Only these servers. */
  only?: readonly string[];
  /** Called as each server's check starts and ends (for a progress line). */
  onCheck?: (server: string, finding: DoctorFinding | undefined) => void;
}

export const DEFAULT_DOCTOR_TIMEOUT_MS = 10_000;
export const DEFAULT_DOCTOR_CONCURRENCY = 4;

/** Checks every server of `config` (and the ones its loader left out). */
export async function runDoctor(
  config: McpConfig,
  options: DoctorOptions = {},
): Promise<DoctorReport> {
  const only = options.only === undefined ? undefined : new Set(options.only);
  const servers = config.servers.filter((s) => only === undefined || only.has(s.name));
  const leftOut = leftOutServers(config, options.diagnostics ?? []).filter(
    (f) => only === undefined || only.has(f.server),
  );
  const secrets: Disposable[] = [];
  try {
    const checked = await mapLimited(
      servers,
      options.concurrency ?? DEFAULT_DOCTOR_CONCURRENCY,
      async (server) => {
        options.onCheck?.(server.name, undefined);
        const finding = await checkServer(server, config, options, secrets);
        options.onCheck?.(server.name, finding);
        return finding;
      },
    );
    const findings = [...checked, ...leftOut];
    const diagnostics = (options.diagnostics ?? [])
      .filter((d) => d.server === undefined)
      .map((d) => redact(formatDiagnostic(d)));
    const exitCode = Math.max(0, ...findings.map((f) => DOCTOR_EXIT_CODES[f.status]));
    return { servers: findings, diagnostics, exitCode };
  } finally {
    // Everything above is masked already; the secrets need not be held past the report.
    for (const secret of secrets) secret.dispose();
  }
}

function leftOutServers(
  config: McpConfig,
  diagnostics: readonly ConfigDiagnostic[],
): DoctorFinding[] {
  const loaded = new Set(config.servers.map((s) => s.name));
  const byServer = new Map<string, ConfigDiagnostic[]>();
  for (const d of diagnostics) {
    if (d.severity !== 'error' || d.server === undefined || loaded.has(d.server)) continue;
    byServer.set(d.server, [...(byServer.get(d.server) ?? []), d]);
  }
  return [...byServer].map(([server, list]) => ({
    server,
    status: 'config-invalid',
    transport: undefined,
    problem: redact(list.map((d) => formatDiagnostic(d)).join('\n')),
    fix: 'correct the entry at the place named (`mcp-host config validate` lists every problem)',
    durationMs: 0,
  }));
}

async function checkServer(
  server: ServerConfig,
  config: McpConfig,
  options: DoctorOptions,
  secrets: Disposable[],
): Promise<DoctorFinding> {
  const started = performance.now();
  const base = {
    server: server.name,
    transport: server.transport.type,
    source: sourceOf(server),
  } satisfies Partial<DoctorFinding>;
  const done = (finding: Omit<DoctorFinding, keyof typeof base | 'durationMs'>): DoctorFinding => ({
    ...base,
    ...finding,
    durationMs: Math.round(performance.now() - started),
  });
  if (!server.enabled)
    return done({
      status: 'disabled',
      problem: 'switched off in the config (enabled: false)',
      fix: 'set enabled: true to use it',
    });
  const env = options.env ?? process.env;
  const resolved = await resolveServer(server, {
    env,
    inputs: options.inputs ?? envInputProvider({ env }),
    ...(config.defaults === undefined ? {} : { defaults: config.defaults }),
  });
  if ('error' in resolved) return done(resolveFailure(resolved.error));
  secrets.push(...resolved.secrets);

  const t = server.transport;
  if (t.type === 'stdio') {
    const found = await findCommand(t.command, env, server);
    if (!found)
      return done({
        status: 'command-not-found',
        code: 'SPAWN_FAILED',
        problem: redact(`command '${t.command}' not found on PATH`),
        fix: `install it, or give its absolute path in 'command' (PATH searched: ${(env.PATH ?? '').split(delimiter).filter(Boolean).length} folders)`,
      });
  }

  const timeoutMs = options.timeoutMs ?? DEFAULT_DOCTOR_TIMEOUT_MS;
  const client = new McpClient({
    ...resolved.definition.client,
    serverName: server.name,
    transport: resolved.definition.transport,
    connectTimeoutMs: timeoutMs,
    requestTimeoutMs: timeoutMs,
    retry: false,
  });
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    await client.connect({ signal: deadline });
    const listing = await client.listTools({ signal: deadline });
    const session = client.session;
    return done({
      status: 'ok',
      ...(client.era === undefined ? {} : { era: client.era }),
      ...(session?.version === undefined ? {} : { protocolVersion: session.version }),
      ...(session?.serverInfo === undefined
        ? {}
        : { serverInfo: { name: session.serverInfo.name, version: session.serverInfo.version } }),
      toolCount: listing.items.length,
      auth: authState(server),
    });
  } catch (error) {
    return done(connectFailure(error, server, deadline.aborted, timeoutMs));
  } finally {
    await client.close();
  }
}

function resolveFailure(
  error: McpHostError,
): Omit<DoctorFinding, 'server' | 'durationMs' | 'transport'> {
  if (error.code === 'CONFIG_VARIABLE_UNSET') {
    const variables = (error.details?.variables as string[] | undefined) ?? [];
    const names = variables.join(', ');
    return {
      status: 'variable-unset',
      code: error.code,
      variables,
      problem: `variable${variables.length === 1 ? '' : 's'} ${names} not set (and no default)`,
      fix: `export ${variables.map((v) => `${v}=…`).join(' ')} before running, or write a default: \${${variables[0] ?? 'VAR'}:-value}`,
    };
  }
  if (error.code === 'CONFIG_INPUT_REQUIRED')
    return {
      status: 'input-required',
      code: error.code,
      problem: redact(error.message),
      fix: 'give the input in MCP_HOST_INPUTS (JSON: {"id": "value"}) or run the command on a terminal to be asked',
    };
  return {
    status: 'config-invalid',
    code: error.code,
    problem: redact(error.message),
    fix: 'correct the entry (`mcp-host config validate` lists every problem)',
  };
}

function connectFailure(
  error: unknown,
  server: ServerConfig,
  timedOut: boolean,
  timeoutMs: number,
): Omit<DoctorFinding, 'server' | 'durationMs' | 'transport' | 'source'> {
  const e = toMcpHostError(error);
  const code = String(e.code);
  const details = e instanceof McpHostError ? e.details : undefined;
  const message = redact(e.message);
  const t = server.transport;
  if (error instanceof ProcessExitedError || code === 'PROCESS_EXITED') {
    const exited = error instanceof ProcessExitedError ? error : undefined;
    const tail = exited === undefined ? '' : lastLines(redact(exited.stderrTail), 10);
    return {
      status: 'crashed',
      code,
      problem: `exited on start${exited?.exitCode == null ? '' : ` with code ${exited.exitCode}`}${exited?.signal == null ? '' : ` (${exited.signal})`} before answering the handshake`,
      fix:
        tail === ''
          ? 'run the command by hand to see why it stops; check its arguments and env'
          : 'read its stderr above; run the command by hand to reproduce',
      ...(exited === undefined ? {} : { exitCode: exited.exitCode }),
      ...(tail === '' ? {} : { stderrTail: tail }),
    };
  }
  if (code === 'SPAWN_FAILED')
    return {
      status: 'command-not-found',
      code,
      problem: message,
      fix: 'install the command, or give its absolute path; check cwd exists and the file is executable',
    };
  if (
    code === 'CONNECT_TIMEOUT' ||
    code === 'REQUEST_TIMEOUT' ||
    (timedOut && (code === 'ABORTED' || code === 'CONNECTION_CLOSED'))
  )
    return {
      status: 'handshake-timeout',
      code,
      problem: `no answer to the handshake within ${formatMs(timeoutMs)}`,
      fix:
        t.type === 'stdio'
          ? 'check it is an MCP server speaking stdio (not waiting for a flag such as --stdio, not printing a prompt); raise --timeout if it is slow to start'
          : 'check the URL is the MCP endpoint; raise --timeout if the server is slow',
    };
  if (code === 'CONNECT_FAILED') {
    const errno = (details?.errno as string | undefined) ?? causeCode(e);
    const dns = errno === 'ENOTFOUND' || errno === 'EAI_AGAIN';
    return {
      status: 'unreachable',
      code,
      problem: dns
        ? `host name of ${redact(t.type === 'stdio' ? '' : t.url)} does not resolve (${errno})`
        : `cannot connect to ${redact(t.type === 'stdio' ? '' : t.url)}${errno === undefined ? '' : ` (${errno})`}`,
      fix: dns
        ? 'check the host name in url, and the network or VPN'
        : 'start the server, or check the host, port and scheme in url (and any proxy)',
    };
  }
  if (code === 'HTTP_STATUS') {
    const status = details?.status as number | undefined;
    if (status === 401 || status === 403)
      return {
        status: 'needs-auth',
        code,
        problem: `the server refused the credentials (HTTP ${status})`,
        fix:
          server.oauth === undefined
            ? 'add an Authorization header (headers: { Authorization: Bearer ${TOKEN} }) or oauth settings'
            : 'sign in again: the OAuth token is missing or expired',
      };
    return {
      status: 'failed',
      code,
      problem: message,
      fix: 'check the URL is the MCP endpoint (often ending in /mcp)',
    };
  }
  return { status: 'failed', code, problem: message, fix: 'see the message; --verbose logs more' };
}

function causeCode(error: Error): string | undefined {
  let cause: unknown = error.cause;
  for (let i = 0; i < 5 && cause !== undefined && cause !== null; i++) {
    const c = cause as { code?: unknown; cause?: unknown };
    if (typeof c.code === 'string' && /^E[A-Z_]+$/.test(c.code)) return c.code;
    cause = c.cause;
  }
  return undefined;
}

function authState(server: ServerConfig): DoctorFinding['auth'] {
  const t = server.transport;
  if (t.type === 'stdio') return 'n/a';
  if (server.oauth !== undefined) return 'oauth';
  const authHeader = Object.keys(t.headers).some((k) =>
    /^(authorization|x-api-key|api-key)$/i.test(k),
  );
  return authHeader ? 'headers' : 'none';
}

/** Whether `command` runs: a path is checked as it is, a bare name is searched on `PATH`. */
export async function findCommand(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
  server?: ServerConfig,
): Promise<boolean> {
  const expanded = command.startsWith('~') ? command.replace(/^~/, env.HOME ?? '~') : command;
  if (expanded.includes('/') || expanded.includes('\\')) {
    const base =
      server?.transport.type === 'stdio' && server.transport.cwd !== undefined
        ? server.transport.cwd
        : process.cwd();
    return isExecutable(isAbsolute(expanded) ? expanded : resolvePath(base, expanded));
  }
  const extensions =
    process.platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    for (const ext of extensions)
      if (await isExecutable(resolvePath(dir, expanded + ext))) return true;
  }
  return false;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    if (!(await stat(file)).isFile()) return false;
    await access(file, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function sourceOf(server: ServerConfig): string {
  const { file, line, column } = server.source;
  return line === undefined ? file : `${file}:${line}:${column ?? 1}`;
}

function lastLines(text: string, count: number): string {
  return text.trimEnd().split(/\r?\n/).slice(-count).join('\n');
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  run: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await run(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/** The report for a person: one line per server, then each problem with its fix. */
export function renderDoctor(
  report: DoctorReport,
  paint: {
    ok(s: string): string;
    warn(s: string): string;
    bad(s: string): string;
    dim(s: string): string;
  } = {
    ok: (s) => s,
    warn: (s) => s,
    bad: (s) => s,
    dim: (s) => s,
  },
): string {
  const lines: string[] = [];
  const width = Math.max(6, ...report.servers.map((f) => f.server.length));
  for (const f of report.servers) {
    const mark =
      f.status === 'ok'
        ? paint.ok('✓')
        : f.status === 'disabled'
          ? paint.dim('-')
          : DOCTOR_EXIT_CODES[f.status] === 3
            ? paint.warn('!')
            : paint.bad('✗');
    const detail =
      f.status === 'ok'
        ? [
            f.era,
            f.protocolVersion,
            `${f.toolCount ?? 0} tools`,
            f.auth === 'n/a' ? undefined : `auth ${f.auth}`,
            `${f.durationMs} ms`,
          ]
            .filter(Boolean)
            .join(', ')
        : (f.problem ?? '').split('\n')[0];
    lines.push(`${mark} ${f.server.padEnd(width)}  ${f.status.padEnd(17)}  ${detail}`);
    if (f.status !== 'ok' && f.status !== 'disabled') {
      for (const extra of (f.problem ?? '').split('\n').slice(1)) lines.push(`    ${extra}`);
      if (f.stderrTail !== undefined) {
        lines.push(paint.dim('    stderr:'));
        for (const l of f.stderrTail.split('\n')) lines.push(paint.dim(`    | ${l}`));
      }
      if (f.fix !== undefined) lines.push(`    fix: ${f.fix}`);
      if (f.source !== undefined) lines.push(paint.dim(`    at ${f.source}`));
    }
  }
  for (const d of report.diagnostics) lines.push(paint.warn(d));
  const problems = report.servers.filter((f) => f.status !== 'ok' && f.status !== 'disabled');
  lines.push(
    '',
    problems.length === 0
      ? paint.ok(
          `${report.servers.length} server${report.servers.length === 1 ? '' : 's'} checked, no problem`,
        )
      : paint.bad(
          `${problems.length} of ${report.servers.length} server${report.servers.length === 1 ? '' : 's'} with a problem`,
        ),
  );
  return lines.join('\n');
}
