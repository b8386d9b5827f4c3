/** The `mcp-host` program: global options and every command group. */
import { Command } from 'commander';
import { commandGroups } from './commands/index.js';
import { addGlobalOptions } from './global-options.js';

export const CLI_VERSION = '0.1.0';

export function createProgram(): Command {
  const program = new Command('mcp-host')
    .description('Run, inspect and call Model Context Protocol servers from one config.')
    .version(CLI_VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ outputError: (text, write) => write(text) })
    .exitOverride();
  addGlobalOptions(program);
  for (const group of commandGroups) group(program);
  return program;
}
