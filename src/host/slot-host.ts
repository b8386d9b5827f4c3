import type { Logger } from '../internal/logger.js';
import { reviewTools } from './host-pins.js';
import type { McpHostOptions } from './mcp-host-options.js';
import type { Tool } from '../protocol/types.js';
import type { StateStore } from '../state/state-store.js';
import type { RestartOptions } from './restart-policy.js';
import type { ServerSlot } from './server-slot.js';
import type { HealthCheckOptions } from './slot-supervision.js';
import type { ToolReview } from './slot-tools.js';
import type { ToolPins } from './tool-pins.js';

/** What a slot needs from its host. */
export interface SlotHost {
  logger: Logger;
  stateStore: StateStore | undefined;
  restart: RestartOptions | undefined;
  health: HealthCheckOptions | undefined;
  /** Runs the pin check on a fresh listing (the host's ToolPins), or lets everything through. */
  review(slot: ServerSlot, tools: Tool[]): Promise<ToolReview>;
  statusChanged(slot: ServerSlot): void;
  toolsChanged(slot: ServerSlot, before: readonly Tool[]): void;
}

/** What a host shares with all its slots. */
export interface SlotHostContext {
  options: McpHostOptions;
  logger: Logger;
  pins: ToolPins | undefined;
  /** The slot registered under `name` now, if any. */
  registered(name: string): ServerSlot | undefined;
  /** The host is closing: nobody will list tools again. */
  closing(): boolean;
  fireStatus(slot: ServerSlot): void;
  setServerTools(slot: ServerSlot): void;
}

/**
 * The host side of every slot of one host. A slot's events count only while it is the one
 * registered under its name (a removed or replaced server still finishing its calls must not
 * touch its successor's tools or status); a removed one still reports its last status.
 */
export function createSlotHost(context: SlotHostContext): SlotHost {
  const { options, logger, pins } = context;
  return {
    logger,
    stateStore: options.stateStore,
    restart: options.restart,
    health: options.health,
    review: (reviewed, tools) => reviewTools(pins, logger, reviewed, tools),
    statusChanged: (changed) => {
      const current = context.registered(changed.name);
      if (current === undefined || current === changed) context.fireStatus(changed);
    },
    toolsChanged: (changed) => {
      // Closing: no rebuild per server leaving, nobody will list tools again.
      if (context.closing() || context.registered(changed.name) !== changed) return;
      context.setServerTools(changed);
    },
  };
}
