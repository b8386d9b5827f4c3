/**
 * `mcp-host config validate [files] | show [--show-secrets] | import --from <tool> [file] |
 * print --for <dialect> [--gateway]`: the config files, checked, merged, converted (see
 * config-tasks.ts); with `--gateway`, the client entry that uses mcp-host's gateway.
 */
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isForeignDialect } from '../../config/dialects/registry.js';
import { resolveGatewaySettings } from '../../config/gateway-settings.js';
import type { ConfigDialect } from '../../config/model.js';
import {
  describeDropped,
  importConfigFile,
  printConfigFor,
  showConfig,
  validateConfig,
  type CliDiagnostic,
} from '../config-tasks.js';
import { importDialects, printDialects } from '../dialect-choices.js';
import { GATEWAY_CLIENTS, gatewaySnippet, isGatewayClient } from '../gateway-snippet.js';
import { ExitCode, usageError } from '../exit-codes.js';
import type { CliRuntime } from '../runtime.js';

/** Each diagnostic on stderr as it reads (`file:line:col: error: …`), not in JSON mode. */
function reportDiagnostics(cli: CliRuntime, diagnostics: readonly CliDiagnostic[]): void {
  for (const d of diagnostics) if (!cli.output.json) cli.output.diagnostic(d.text, d.severity);
}

export async function validate(cli: CliRuntime, files: string[]): Promise<ExitCode> {
  const explicit = files.length > 0 ? files : cli.options.config;
  const result = await validateConfig(explicit, { cwd: cli.cwd, env: cli.env });
  if (result.files.length === 0)
    throw usageError('no config file found (mcp.yaml, mcp.json, .mcp.json): give one');
  cli.output.result(result, () => {
    for (const d of result.diagnostics) {
      const text = d.text.replace(/\b(error|warning):/, (word) =>
        cli.output.style(d.severity === 'error' ? 'red' : 'yellow', word),
      );
      cli.output.line(text);
    }
    const summary = `${result.files.length} file${result.files.length === 1 ? '' : 's'}, ${result.servers.length} server${result.servers.length === 1 ? '' : 's'}: ${result.errors} error${result.errors === 1 ? '' : 's'}, ${result.warnings} warning${result.warnings === 1 ? '' : 's'}`;
    cli.output.line(cli.output.style(result.valid ? 'green' : 'red', summary));
  });
  return result.valid ? ExitCode.ok : ExitCode.usage;
}

export async function show(cli: CliRuntime, options: { showSecrets?: boolean }): Promise<void> {
  const { config } = await cli.loadConfig();
  const shown = showConfig(config, { reveal: options.showSecrets === true });
  if (options.showSecrets === true) cli.output.warn('--show-secrets: the output holds secrets');
  cli.output.result(shown.config, () => process.stdout.write(shown.text));
}

export async function importCommand(
  cli: CliRuntime,
  file: string | undefined,
  options: {
    from: string;
    out?: string;
    dryRun?: boolean;
    showSecrets?: boolean;
    allowPartial?: boolean;
  },
): Promise<ExitCode> {
  const from = options.from as ConfigDialect;
  if (!isForeignDialect(from))
    throw usageError(`--from must be one of ${importDialects.join(', ')}`);
  const result = await importConfigFile({
    from,
    ...(file === undefined ? {} : { file }),
    ...(options.out === undefined ? {} : { out: options.out }),
    format: options.out?.toLowerCase().endsWith('.json') === true ? 'json' : 'yaml',
    dryRun: options.dryRun === true,
    reveal: options.showSecrets === true,
    allowPartial: options.allowPartial === true,
    cwd: cli.cwd,
    env: cli.env,
  }).catch((error: unknown) => {
    throw usageError(error instanceof Error ? error.message : String(error));
  });
  reportDiagnostics(cli, result.diagnostics);
  if (result.dropped.length > 0 && options.allowPartial !== true)
    throw usageError(
      `${describeDropped(result.dropped)}; ${options.dryRun === true ? 'an import would write nothing' : 'nothing written'}: fix them, or add --allow-partial to import the rest`,
    );
  if (options.dryRun === true && result.masked)
    cli.output.notice('secrets masked (--show-secrets prints them); the file written has them');
  cli.output.result(result, () => {
    if (options.dryRun === true) {
      process.stdout.write(result.text);
      return;
    }
    cli.output.line(
      `imported ${result.servers.length} server${result.servers.length === 1 ? '' : 's'} (${result.servers.join(', ')}) from ${result.source} into ${result.written ?? ''}${result.backup === undefined ? '' : ` (old file kept as ${result.backup})`}`,
    );
  });
  return ExitCode.ok;
}

/**
 * Prints the config for `dialect`; a server the dialect cannot hold is an error (exit 1, the rest
 * still printed) unless `allowPartial`.
 */
export async function print(
  cli: CliRuntime,
  dialect: string,
  options: { reveal: boolean; allowPartial: boolean; gateway?: GatewayPrintOptions },
): Promise<ExitCode> {
  const { gateway: wanted, ...flags } = options.gateway ?? {};
  if (wanted === true) return printGateway(cli, dialect, { ...flags, reveal: options.reveal });
  if (Object.values(flags).some((flag) => flag !== undefined))
    throw usageError('--transport, --port, --host and --view go with --gateway');
  const { config } = await cli.loadConfig();
  if (!(printDialects as string[]).includes(dialect))
    throw usageError(`--for must be one of ${printDialects.join(', ')}`);
  const result = printConfigFor(config, dialect as ConfigDialect, { reveal: options.reveal });
  reportDiagnostics(cli, result.diagnostics);
  if (result.masked)
    cli.output.notice('secrets masked: add --show-secrets for a file to use (it then holds them)');
  cli.output.result(result, () => process.stdout.write(result.text));
  if (result.dropped.length === 0 || options.allowPartial) return ExitCode.ok;
  cli.output.error(
    usageError(
      `${describeDropped(result.dropped, `the ${dialect} config`)}; --allow-partial accepts that`,
    ),
  );
  return ExitCode.usage;
}

/** `config print --gateway`'s own options. */
export interface GatewayPrintOptions {
  /** Print the gateway's entry (the other options need it). */
  gateway?: boolean;
  transport?: 'stdio' | 'http';
  port?: number;
  host?: string;
  view?: string;
}

/**
 * `config print --for <client> --gateway`: the entry that makes the client use this gateway (see
 * gateway-snippet.ts), on stdout; where it goes and where the token is, on stderr.
 */
async function printGateway(
  cli: CliRuntime,
  dialect: string,
  options: Omit<GatewayPrintOptions, 'gateway'> & { reveal: boolean },
): Promise<ExitCode> {
  if (options.transport === 'stdio' && (options.port !== undefined || options.host !== undefined))
    throw usageError('--port and --host are for --transport http');
  if (!isGatewayClient(dialect))
    throw usageError(`with --gateway, --for must be one of ${GATEWAY_CLIENTS.join(', ')}`);
  const loaded = await cli.loadConfig();
  if (loaded.embedded)
    throw usageError(
      'no config file found: the gateway serves the servers of one (give --config <file>)',
    );
  const { config } = loaded;
  if (options.view !== undefined) await cli.view(options.view);
  let settings;
  try {
    settings = resolveGatewaySettings(config, {
      env: cli.env,
      overrides: {
        // A port asks for HTTP.
        ...(options.transport === undefined && options.port === undefined
          ? {}
          : { transport: options.transport ?? 'http' }),
        ...(options.port === undefined ? {} : { port: options.port }),
        ...(options.host === undefined ? {} : { host: options.host }),
      },
    });
  } catch (error) {
    throw usageError(error instanceof Error ? error.message : String(error));
  }
  if (
    options.view !== undefined &&
    settings.transport === 'http' &&
    settings.views !== undefined &&
    !settings.views.includes(options.view)
  )
    throw usageError(
      `the gateway does not offer the view '${options.view}' over HTTP (gateway.views: ${settings.views.join(', ') || 'none'})`,
    );
  const snippet = await gatewaySnippet(dialect, {
    settings,
    configFiles: config.files.map((f) => f.file),
    launcher: await cliLauncher(),
    ...(options.view === undefined ? {} : { view: options.view }),
    reveal: options.reveal,
  }).catch((error: unknown) => {
    throw usageError(error instanceof Error ? error.message : String(error));
  });
  if (options.reveal && snippet.tokenFile !== undefined)
    cli.output.warn('--show-secrets: the output holds the gateway token');
  for (const note of snippet.notes) cli.output.notice(note);
  cli.output.result(snippet, () => process.stdout.write(snippet.text));
  return ExitCode.ok;
}

/**
 * How a client starts this mcp-host: this Node and this CLI script, by absolute path (a client
 * started from a desktop has a short PATH); `npx -y mcp-host` when it runs from npx's cache,
 * which does not last.
 */
async function cliLauncher(): Promise<{ command: string; args: string[] }> {
  const script = process.argv[1];
  if (script === undefined) return { command: 'npx', args: ['-y', 'mcp-host'] };
  const path = await realpath(script).catch(() => resolve(script));
  if (/[\\/]_npx[\\/]/.test(path)) return { command: 'npx', args: ['-y', 'mcp-host'] };
  return { command: process.execPath, args: [path] };
}
