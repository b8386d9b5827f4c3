/**
 * The command registry: one file per command group, each a `CommandGroup` adding its commands to
 * the program. Order here is the order in `--help`.
 */
import type { CommandGroup } from '../command.js';
import { registerCall } from './call.js';
import { registerCompletion } from './completion.js';
import { registerConfig } from './config.js';
import { registerDoctor } from './doctor.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { registerServers } from './servers.js';
import { registerTools } from './tools.js';
import { registerWatch } from './watch.js';

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
