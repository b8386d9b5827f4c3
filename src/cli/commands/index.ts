/**
 * The command registry: one file per command group, each a `CommandGroup` adding its commands to
 * the program. Order here is the order in `--help`.
 */
import type { CommandGroup } from '../command.js';
import { registerServers } from './servers.js';

export const commandGroups: readonly CommandGroup[] = [registerServers];
