/**
 * The `mcp-host` program: global options and every command group (one file per group under
 * commands/, each a `CommandGroup` adding its commands). The order of `commandGroups` is the order
 * in `--help`.
 */
import { Command } from 'commander';
import type { CommandGroup } from './command.js';
import { registerCall } from './commands/call.js';
import { registerCompletion } from './commands/completion.js';
import { registerConfig } from './commands/config.js';
import { registerDoctor } from './commands/doctor.js';
import { registerPrompts } from './commands/prompts.js';
import { registerResources } from './commands/resources.js';
import { registerServers } from './commands/servers.js';
import { registerTools } from './commands/tools.js';
import { registerWatch } from './commands/watch.js';
import { addGlobalOptions } from './global-options.js';

export const CLI_VERSION = '0.1.0';

export const commandGroups: readonly CommandGroup[] = [
  registerServers,
  registerTools,
  registerCall,
  registerResources,
  registerPrompts,
  registerConfig,
  registerDoctor,
  registerWatch,
  registerCompletion,
];

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
