/**
 * `mcp-host completion bash|zsh|fish` prints a completion script (see ../completion.ts), and the
 * hidden `mcp-host __complete servers|tools` it calls: server names from the config (no connect),
 * or `server/tool` names (connects, each server within 3 s or --timeout if shorter).
 */
import type { Command } from 'commander';
import { completionScript, completionTree, type CompletionShell } from '../completion-script.js';
import type { CliRuntime } from '../runtime.js';

/** `mcp-host completion <shell>`: the script for `program`'s commands. */
export function completion(program: Command, shell: CompletionShell): Promise<void> {
  process.stdout.write(completionScript(shell, completionTree(program)));
  return Promise.resolve();
}

export async function complete(cli: CliRuntime, what: string): Promise<void> {
  // Names of what loaded: a server the config reader left out is for the commands to report,
  // not for the shell to print in the middle of a line being typed.
  if (what === 'servers') {
    const { config } = await cli.loadConfig({ serverErrors: 'report' });
    for (const server of config.servers) process.stdout.write(`${server.name}\n`);
    return;
  }
  if (what === 'tools') {
    cli.options.timeoutMs = Math.min(cli.options.timeoutMs, 3_000);
    const { host } = await cli.openHost({ serverErrors: 'report' });
    for (const tool of host.tools())
      if (tool.server !== undefined) process.stdout.write(`${tool.server}/${tool.originalName}\n`);
  }
}
