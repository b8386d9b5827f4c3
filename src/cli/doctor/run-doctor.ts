/**
 * `mcp-host doctor`: checks each configured server and says what to do about each problem. Per
 * server, in order, stopping at the first problem: its config entry loaded (a diagnostic that left
 * it out), its variables and inputs resolve (resolveServer, which names every unset variable), its
 * command is found (PATH lookup, before anything is spawned), then one real connect with a bound
 * (the handshake, the era, the tool list), classified: crashed on start (exit code and the masked
 * stderr tail), no answer to the handshake (timeout), unreachable URL (refused, DNS), refused
 * credentials. Each server's variables and inputs are resolved first, one server after the other
 * (a `${input:…}` asked on a terminal is one question at a time, before the progress line starts),
 * then servers are checked a few at a time; nothing is restarted or retried.
 *
 * `runDoctor` returns data: the checks are here, the report and its exit codes in doctor-report.ts,
 * why a check failed and its fix in doctor-failures.ts, the command check in the stdio transport's
 * command-problem.ts (the words a failed spawn uses); the command (src/cli/commands/doctor.ts)
 * wires them to the output.
 */
import { delimiter } from 'node:path';
import { McpClient } from '../../client/mcp-client.js';
import { formatDiagnostic } from '../../config/diagnostics.js';
import type { ConfigDiagnostic, McpConfig, ServerConfig } from '../../config/model.js';
import { resolveServer, type ResolveServerResult } from '../../config/resolve-config.js';
import {
  envInputProvider,
  InputResolver,
  type InputProvider,
} from '../../config/expand/input-providers.js';
import { redact } from '../../errors/redact.js';
import type { Disposable } from '../../internal/disposable.js';
import { commandProblem, type CommandProblem } from '../../transport/stdio/command-problem.js';
import { worstExitCode } from '../exit-codes.js';
import { connectFailure, resolveFailure } from './doctor-failures.js';
import { DOCTOR_EXIT_CODES, type DoctorFinding, type DoctorReport } from './doctor-report.js';

export interface DoctorOptions {
  /** Where variables come from (default `process.env`); its `PATH` is searched for commands. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The bound on each connect, handshake and tool listing included (default 10 s). */
  timeoutMs?: number;
  /** Servers checked at once (default 4). */
  concurrency?: number;
  /**
   * Gives `${input:id}` values, each asked once for the whole config (default: `MCP_HOST_INPUTS`
   * of `env`, non-interactive; the CLI adds a prompt on a terminal).
   */
  inputs?: InputProvider | InputResolver;
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
  const env = options.env ?? process.env;
  const inputs =
    options.inputs instanceof InputResolver
      ? options.inputs
      : new InputResolver({
          inputs: config.inputs ?? [],
          provider: options.inputs ?? envInputProvider({ env }),
        });
  const secrets: Disposable[] = [];
  try {
    // Resolved one after the other: a prompt for an input never meets another prompt or the
    // progress line (nothing is spawned or sent here).
    const prepared: Prepared[] = [];
    for (const server of servers)
      prepared.push(await prepareServer(server, config, env, inputs, secrets));
    const checked = await mapLimited(
      prepared,
      options.concurrency ?? DEFAULT_DOCTOR_CONCURRENCY,
      async (item) => {
        if ('finding' in item) {
          options.onCheck?.(item.finding.server, item.finding);
          return item.finding;
        }
        options.onCheck?.(item.server.name, undefined);
        const finding = await checkServer(item, env, options);
        options.onCheck?.(item.server.name, finding);
        return finding;
      },
    );
    const findings = [...checked, ...leftOut];
    const diagnostics = (options.diagnostics ?? [])
      .filter((d) => d.server === undefined)
      .map((d) => redact(formatDiagnostic(d)));
    const exitCode = worstExitCode(findings.map((f) => DOCTOR_EXIT_CODES[f.status]));
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

/** A server whose check ended before a connect (a finding), or its resolved definition. */
type Prepared = { finding: DoctorFinding } | (Resolved & { started: number });

interface Resolved {
  server: ServerConfig;
  definition: Extract<ResolveServerResult, { definition: unknown }>['definition'];
}

/** Resolves a server's variables and inputs: a finding when it is disabled or does not resolve. */
async function prepareServer(
  server: ServerConfig,
  config: McpConfig,
  env: Readonly<Record<string, string | undefined>>,
  inputs: InputResolver,
  secrets: Disposable[],
): Promise<Prepared> {
  const started = performance.now();
  const finding = (found: FindingFields): Prepared => ({
    finding: findingOf(server, started, found),
  });
  if (!server.enabled)
    return finding({
      status: 'disabled',
      problem: 'switched off in the config (enabled: false)',
      fix: 'set enabled: true to use it',
    });
  const resolved = await resolveServer(server, {
    env,
    inputs,
    ...(config.defaults === undefined ? {} : { defaults: config.defaults }),
  });
  if ('error' in resolved) return finding(resolveFailure(resolved.error));
  secrets.push(...resolved.secrets);
  return { server, definition: resolved.definition, started: performance.now() };
}

type FindingFields = Omit<DoctorFinding, 'server' | 'transport' | 'source' | 'durationMs'>;

function findingOf(server: ServerConfig, started: number, found: FindingFields): DoctorFinding {
  return {
    server: server.name,
    transport: server.transport.type,
    source: sourceOf(server),
    ...found,
    durationMs: Math.round(performance.now() - started),
  };
}

async function checkServer(
  { server, definition, started }: Resolved & { started: number },
  env: Readonly<Record<string, string | undefined>>,
  options: DoctorOptions,
): Promise<DoctorFinding> {
  const done = (found: FindingFields): DoctorFinding => findingOf(server, started, found);
  // The command as it will run: expanded, its relative `cwd` resolved against the config file's
  // directory, checked with the words a failed spawn uses (`servers status`).
  const t = definition.transport;
  if (typeof t !== 'function' && t.type === 'stdio') {
    const problem = commandProblem(t.command, { ...env, ...t.env }, t.cwd);
    if (problem !== undefined)
      return done({
        status: 'command-not-found',
        code: 'SPAWN_FAILED',
        problem: redact(problem.message),
        fix: commandFix(problem, env),
      });
  }

  const timeoutMs = options.timeoutMs ?? DEFAULT_DOCTOR_TIMEOUT_MS;
  const client = new McpClient({
    ...definition.client,
    serverName: server.name,
    transport: definition.transport,
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
      toolCount: listing.tools.length,
      auth: authState(server),
    });
  } catch (error) {
    return done(connectFailure(error, server, deadline.aborted, timeoutMs));
  } finally {
    await client.close();
  }
}

/** What to do about a command that cannot be started. */
function commandFix(
  problem: CommandProblem,
  env: Readonly<Record<string, string | undefined>>,
): string {
  switch (problem.reason) {
    case 'no-cwd':
      return "create the directory, or correct 'cwd' (a relative cwd is resolved against the config file's directory)";
    case 'directory':
      return "give the path of the program in 'command', not a directory";
    case 'not-executable':
      return `make it executable (chmod +x ${problem.path ?? 'the file'}), or run it through its interpreter ('command: node', the script in 'args')`;
    case 'not-found':
      return `install it, or give its absolute path in 'command' (PATH searched: ${(env.PATH ?? '').split(delimiter).filter(Boolean).length} folders)`;
  }
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

function sourceOf(server: ServerConfig): string {
  const { file, line, column } = server.source;
  return line === undefined ? file : `${file}:${line}:${column ?? 1}`;
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
