/**
 * A host's tool pins (`createHostPins`): the pin check its servers' listings go through, on its
 * state store, and the watch of the pins other processes change.
 *
 * Tool pins changed by another process or replica sharing the state store (`StateStore.watch`
 * on the `pins` namespace), applied to this host's servers of that identity, without a listing
 * unless one is needed:
 *
 * - a tool held here whose held definition is now pinned (approved elsewhere: `tools approve`, or
 *   another replica's `approveTool`) is reviewed again from the last listing, and offered;
 * - a tool offered here whose stored pin moved, or for which another process holds a different
 *   definition (it saw the server change), makes this host list that server again: its own
 *   review then quarantines the tool if this server changed too. Once per tool and stored pin, so
 *   that hosts whose servers really differ do not make each other list for ever.
 *
 * Changes are handled one identity at a time, in order; a change that comes while one is handled
 * is handled after it (once, however many came). Failures are logged: the tools offered stay as
 * they were.
 */
import type { Disposable } from '../../internal/disposable.js';
import type { Logger } from '../../internal/logger.js';
import type { Tool } from '../../protocol/types.js';
import type { StateStore } from '../../state/state-store.js';
import { MemoryStateStore } from '../../state/state-store.js';
import type { ToolReviewer } from '../slot/server-tools.js';
import { PINS_NAMESPACE } from './pin-record.js';
import type { PinEvent, PinPolicy, PinRecord, QuarantinedTool } from './pin-types.js';
import { toolPin, ToolPins } from './tool-pins.js';

/** A host's pins: the check, how listings are reviewed, the watch (ended with `dispose`). */
export interface HostPins {
  /** Undefined when pinning is off. */
  pins: ToolPins | undefined;
  review: ToolReviewer;
  /** The watch of other processes' changes; undefined without pinning or a store with `watch`. */
  watch: Disposable | undefined;
}

/**
 * The pins of a host: `policy` false turns pinning off (every listed tool offered); otherwise a
 * `ToolPins` on `store` (in memory without one) whose events go to `onEvent`, watched when a
 * store was given and has `watch`.
 */
export function createHostPins(options: {
  policy: PinPolicy | false;
  store: StateStore | undefined;
  servers: () => Iterable<WatchedServer>;
  onEvent: (event: PinEvent) => void;
  logger: Logger;
}): HostPins {
  if (options.policy === false)
    return {
      pins: undefined,
      review: (_identity, tools) => Promise.resolve({ allowed: tools, quarantined: [] }),
      watch: undefined,
    };
  const store = options.store ?? new MemoryStateStore();
  const pins = new ToolPins({ store, policy: options.policy, logger: options.logger });
  pins.onEvent(options.onEvent);
  return {
    pins,
    review: (identity, tools) => pins.review(identity, tools),
    // An approval or quarantine by another process sharing the store applies here too. A store
    // of the host's own has no other writer: watching it would only wake the host on its own
    // reviews, to hash every tool it offers again and find nothing.
    watch:
      options.store === undefined
        ? undefined
        : watchPins({
            store,
            entries: (identity) => pins.entries(identity),
            servers: options.servers,
            logger: options.logger,
          }),
  };
}

/** What the watch needs of one of the host's servers. */
export interface WatchedServer {
  readonly name: string;
  /** The key its pins are stored under. */
  readonly identity: string;
  /** Its client while connected (a server that is not lists its tools when it connects). */
  readonly client: unknown;
  /** The tools offered (after the pin check), by original name. */
  readonly tools: readonly Tool[];
  /** The tools held by the pin check, by original name. */
  readonly quarantined: ReadonlyMap<string, QuarantinedTool>;
  /** Reviews the last listing again, without listing. */
  reviewAgain(): Promise<void>;
  /** Lists the tools again and reviews them. */
  refreshTools(): Promise<void>;
  /** Resolves once no review of its tools is under way (its tools and the pins then agree). */
  settled(): Promise<void>;
}

export interface PinWatchOptions {
  /** The store pins live in: watched when it has `watch`. */
  store: StateStore;
  /** The stored pins of an identity (`ToolPins.entries`). */
  entries(identity: string): Promise<PinRecord[]>;
  /** The host's servers as they are now. */
  servers(): Iterable<WatchedServer>;
  logger: Logger;
}

/** Relistings remembered (tool and stored pin) before the oldest are forgotten. */
const MAX_REMEMBERED_RELISTINGS = 1_000;

/**
 * Watches the store's pins for the host, or returns undefined for a store without `watch`.
 * Dispose to stop (a change under way finishes quietly).
 */
export function watchPins(options: PinWatchOptions): Disposable | undefined {
  if (options.store.watch === undefined) return undefined;
  const running = new Map<string, { again: boolean }>();
  const relisted = new Set<string>();
  let stopped = false;

  const handle = async (identity: string): Promise<void> => {
    const servers = [...options.servers()].filter(
      (server) => server.identity === identity && server.client !== undefined,
    );
    if (servers.length === 0) return;
    const stored = new Map(
      (await options.entries(identity)).map((record) => [record.name, record]),
    );
    for (const server of servers) {
      if (stopped) return;
      // A review of its own may be what wrote the pins: judge the tools it offers once applied.
      await server.settled();
      const action = await actionFor(server, stored, relisted);
      if (action === 'review') await server.reviewAgain();
      else if (action === 'relist') await server.refreshTools();
    }
    while (relisted.size > MAX_REMEMBERED_RELISTINGS)
      relisted.delete(relisted.values().next().value!);
  };

  const changed = (identity: string): void => {
    if (stopped) return;
    const current = running.get(identity);
    if (current !== undefined) {
      current.again = true;
      return;
    }
    const state = { again: false };
    running.set(identity, state);
    void (async () => {
      try {
        do {
          state.again = false;
          await handle(identity).catch((error: unknown) =>
            options.logger.warn('tool pins: applying a change made elsewhere failed', {
              identity,
              error: error instanceof Error ? error.message : String(error),
            }),
          );
        } while (state.again && !stopped);
      } finally {
        running.delete(identity);
      }
    })();
  };

  const watch = options.store.watch(PINS_NAMESPACE, changed);
  const stop = () => {
    stopped = true;
    watch[Symbol.dispose]();
  };
  return { dispose: stop, [Symbol.dispose]: stop };
}

/** What one server needs after its identity's stored pins changed. */
async function actionFor(
  server: WatchedServer,
  stored: ReadonlyMap<string, PinRecord>,
  relisted: Set<string>,
): Promise<'none' | 'review' | 'relist'> {
  for (const [name, held] of server.quarantined)
    if (held.pin !== undefined && stored.get(name)?.pin === held.pin) return 'review';
  for (const tool of server.tools) {
    const record = stored.get(tool.name);
    if (record === undefined) continue;
    // Held elsewhere (another process saw this tool change), or pinned to another definition.
    const elsewhere = record.pending?.pin ?? record.pin;
    if (elsewhere === undefined) continue;
    const key = `${server.name}\u0000${tool.name}\u0000${elsewhere}`;
    if (relisted.has(key)) continue;
    if ((await toolPin(tool)) === elsewhere) continue;
    relisted.add(key);
    return 'relist';
  }
  return 'none';
}
