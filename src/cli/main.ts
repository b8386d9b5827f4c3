#!/usr/bin/env node
/**
 * The `mcp-host` command. This release ships the library's foundation only; the commands
 * (`servers`, `tools`, `call`, `config`, `doctor`, `watch`) arrive with the host and config layers.
 */
const version = '0.1.0';
const argv = process.argv.slice(2);

if (argv.includes('--version') || argv.includes('-v')) {
  process.stdout.write(`mcp-host ${version}\n`);
} else {
  process.stdout.write(
    [
      `mcp-host ${version}`,
      '',
      'This release provides the library (JSON-RPC peer, stdio and in-memory transports).',
      'The command line (servers, tools, call, config, doctor, watch) is not part of it yet.',
      '',
      'Usage: mcp-host --version | --help',
      '',
    ].join('\n'),
  );
  if (argv.length > 0 && !argv.includes('--help') && !argv.includes('-h')) process.exitCode = 1;
}
