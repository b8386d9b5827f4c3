import type { Logger } from '../internal/logger.js';
import type { Tool } from '../protocol/types.js';
import type { StateStore } from '../state/state-store.js';
import { MemoryStateStore } from '../state/state-store.js';
import type { HostServerDefinition } from './host-options.js';
import type { PinEvent, PinPolicy } from './pin-types.js';
import type { ServerSlot } from './server-slot.js';
import type { ToolReview } from './slot-tools.js';
import { ToolPins } from './tool-pins.js';

/** One tool the pin check holds back, as `McpHost.quarantined()` lists it. */
export interface QuarantinedSummary {
  server: string;
  tool: string;
  reason: string;
  pin: string | undefined;
  summary: string;
}

/** The host's tool pinning (`pins` option), or undefined when it is off (`pins: false`). */
export function createHostPins(
  policy: PinPolicy | false | undefined,
  stateStore: StateStore | undefined,
  logger: Logger,
  onEvent: (event: PinEvent) => void,
): ToolPins | undefined {
  if (policy === false) return undefined;
  const pins = new ToolPins({
    store: stateStore ?? new MemoryStateStore(),
    policy: policy ?? 'trust-on-first-use',
    logger,
  });
  pins.onEvent(onEvent);
  return pins;
}

/** The pin check on a fresh listing of `slot` (everything allowed without pins); logs holds. */
export async function reviewTools(
  pins: ToolPins | undefined,
  logger: Logger,
  slot: ServerSlot,
  tools: Tool[],
): Promise<ToolReview> {
  if (pins === undefined) return { allowed: tools, quarantined: new Map() };
  const review = await pins.review(identityOf(slot.definition), tools);
  for (const held of review.quarantined)
    logger.warn(
      `server '${slot.name}': tool '${held.tool.name}' quarantined (${held.reason}): ${held.diff.summary}`,
    );
  return {
    allowed: review.allowed,
    quarantined: new Map(review.quarantined.map((held) => [held.tool.name, held])),
  };
}

/** The tools held back by the pin check, per server, with the reason and the diff. */
export function quarantinedTools(slots: Iterable<ServerSlot>): QuarantinedSummary[] {
  return [...slots].flatMap((slot) =>
    [...slot.quarantined.values()].map((held) => ({
      server: slot.name,
      tool: held.tool.name,
      reason: held.reason,
      pin: held.pin,
      summary: held.diff.summary,
    })),
  );
}

/** The key a server's pins are stored under. */
export function identityOf(definition: HostServerDefinition): string {
  return definition.identity ?? definition.name;
}
