/**
 * What `mcp-host doctor` reports: the status of each server (with the exit code it maps to), the
 * finding per server, and `renderDoctor`, the report for a person.
 */
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

/**
 * The CLI exit code each status maps to, the one every other command gives for the same failure
 * (a command not found is SPAWN_FAILED, 4, as `servers status` says); the worst (highest) one is
 * the command's, as for `servers status` (`worstExitCode`).
 */
export const DOCTOR_EXIT_CODES: Readonly<Record<DoctorStatus, number>> = {
  ok: 0,
  disabled: 0,
  'config-invalid': 1,
  'variable-unset': 1,
  'input-required': 3,
  'needs-auth': 3,
  'command-not-found': 4,
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
