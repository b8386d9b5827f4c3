/**
 * `mcp-host completion bash|zsh|fish` prints a completion script (see ../completion.ts), and the
 * hidden `mcp-host __complete servers|tools` it calls: server names from the config (no connect),
 * or `server/tool` names (connects, each server within 3 s or --timeout if shorter).
 */
import { Argument, type Command } from 'commander';
import { action } from '../command.js';
import {
  completionScript,
  completionShells,
  completionTree,
  type CompletionShell,
} from '../completion-script.js';
import type { CliRuntime } from '../runtime.js';

export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('a shell completion script (commands, server and tool names)')
    .addArgument(new Argument('<shell>', 'the shell').choices(completionShells))
    .action(
      action((cli, [shell]) => {
        process.stdout.write(completionScript(shell as CompletionShell, completionTree(program)));
        return Promise.resolve();
      }),
    );
  program
    .command('__complete <what>', { hidden: true })
    .action(action((cli, [what]) => complete(cli, what ?? '')));
}

async function complete(cli: CliRuntime, what: string): Promise<void> {
  if (what === 'servers') {
    const { config } = await cli.loadConfig();
    for (const server of config.servers) process.stdout.write(`${server.name}\n`);
    return;
  }
  if (what === 'tools') {
    cli.options.timeoutMs = Math.min(cli.options.timeoutMs, 3_000);
    const { host } = await cli.openHost();
    for (const tool of host.tools())
      if (tool.server !== undefined) process.stdout.write(`${tool.server}/${tool.originalName}\n`);
  }
}
