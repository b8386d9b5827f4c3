/**
 * The `mcp-host` command (see README "Command line"), run by its entry (main.ts). A function, not
 * top-level code: a module awaiting at its top level must be a chunk nothing else imports (a
 * command's chunk importing it would wait for it, which waits for the command), and the build
 * merges small shared chunks into others (scripts/build.mjs).
 */
import { CommanderError } from 'commander';
import { installProcessHandlers } from './command.js';
import { ExitCode } from './exit-codes.js';
import { createProgram } from './program.js';
import { usageErrorLine, wantsJsonErrors } from './usage-errors.js';

/** Parses the command line and runs the command; sets `process.exitCode`. */
export async function runCommandLine(): Promise<void> {
  installProcessHandlers();
  const program = createProgram();
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; any other parse error is a usage error (commander printed it as
      // text, or in JSON mode held it back for its one JSON line).
      process.exitCode = error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
      const argv = process.argv.slice(2);
      if (error.exitCode !== 0 && wantsJsonErrors(program, argv))
        process.stderr.write(usageErrorLine(error, program, argv));
    } else throw error;
  }
}
