/**
 * `mcp-host doctor [servers...]`: checks each server and says what to do about each problem (the
 * checks, the report and the failures are in ../doctor/), each within --timeout (default 10 s
 * here), with a progress line. Exit code: the worst finding's (1 config, 3 auth or input, 4
 * unreachable or not started), by the rule `servers status` follows too (`worstExitCode`).
 */
import type { Command } from 'commander';
import { DEFAULT_DOCTOR_TIMEOUT_MS, runDoctor } from '../doctor/run-doctor.js';
import { renderDoctor } from '../doctor/doctor-report.js';
import type { ExitCode } from '../exit-codes.js';
import type { CliRuntime } from '../runtime.js';

export async function doctor(
  cli: CliRuntime,
  servers: string[],
  command: Command,
): Promise<ExitCode> {
  // Without --timeout (or MCP_HOST_TIMEOUT), 10 s per server rather than the CLI's 30 s.
  const timeoutMs =
    command.optsWithGlobals().timeout === undefined
      ? DEFAULT_DOCTOR_TIMEOUT_MS
      : cli.options.timeoutMs;
  // A server the config reader left out is a finding of the report (config-invalid).
  const { config, diagnostics } = await cli.loadConfig({ serverErrors: 'report' });
  const leftOut = new Set(diagnostics.flatMap((d) => (d.severity === 'error' ? [d.server] : [])));
  for (const name of servers)
    if (!leftOut.has(name)) await cli.server(name, { serverErrors: 'report' });
  const pending = new Set<string>();
  const report = await runDoctor(config, {
    env: cli.env,
    // On a terminal an input nobody gave is asked for, as every other command does.
    inputs: cli.inputs(),
    timeoutMs,
    diagnostics,
    ...(servers.length === 0 ? {} : { only: servers }),
    onCheck: (server, finding) => {
      if (finding === undefined) pending.add(server);
      else pending.delete(server);
      if (pending.size > 0) cli.output.progress(`checking ${[...pending].join(', ')}`);
    },
  });
  cli.output.clearProgress();
  cli.output.result(report, () =>
    cli.output.line(
      renderDoctor(report, {
        ok: (s) => cli.output.style('green', s),
        warn: (s) => cli.output.style('yellow', s),
        bad: (s) => cli.output.style('red', s),
        dim: (s) => cli.output.style('dim', s),
      }),
    ),
  );
  return report.exitCode as ExitCode;
}
