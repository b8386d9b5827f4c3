import { toMcpHostError } from '../errors/to-mcp-host-error.js';
import type { Disposable } from '../internal/disposable.js';
import type { Logger } from '../internal/logger.js';
import type { JsonObject } from '../jsonrpc/message.js';
import type { GatewaySource } from './gateway-source.js';

/** The three lists a client is told have changed. */
export type ListKind = 'tools' | 'resources' | 'prompts';

/** The source's tools as the wire shows them (exposed names, no host fields). */
export function wireTools(source: GatewaySource): JsonObject[] {
  return source.tools().map((tool) => {
    const wire: JsonObject = { name: tool.name, inputSchema: tool.inputSchema };
    if (tool.title !== undefined) wire.title = tool.title;
    if (tool.description !== undefined) wire.description = tool.description;
    if (tool.outputSchema !== undefined) wire.outputSchema = tool.outputSchema;
    if (tool.annotations !== undefined) wire.annotations = tool.annotations;
    return wire;
  });
}

/** The source's resources as the wire shows them. */
export async function wireResources(source: GatewaySource): Promise<JsonObject[]> {
  return (await source.resources()).map(({ server: _server, ...resource }) => ({ ...resource }));
}

/** The source's prompts as the wire shows them (namespaced names). */
export async function wirePrompts(source: GatewaySource): Promise<JsonObject[]> {
  return (await source.prompts()).map(
    ({ server: _server, originalName: _originalName, ...prompt }) => ({ ...prompt }),
  );
}

/** A list as text, for "did it change": its JSON, in its order. */
export function fingerprint(items: readonly unknown[]): string {
  return JSON.stringify(items);
}

/**
 * What one listener (a legacy session, or one modern `subscriptions/listen` stream) was last told
 * of each list, and the comparisons that find a real change: `announce(kind)` is called when a
 * list differs from what the listener knows, so a change elsewhere in the host (another view's
 * tools, a server restarting to the same tools) announces nothing. A list the listener does not
 * know yet is learnt silently the first time it is compared.
 */
export class ListChanges {
  readonly #source: GatewaySource;
  readonly #logger: Logger;
  readonly #announce: (kind: ListKind) => void;
  readonly #known = new Map<ListKind, string>();
  readonly #subscriptions: Disposable[] = [];
  /** The servers connected when the resources and prompts were last compared (none yet). */
  #connected: string | undefined;
  /** One comparison of resources and prompts at a time (each lists every server). */
  #compare: Promise<void> = Promise.resolve();
  #compareQueued = false;
  #toolsCheckQueued = false;
  #state: 'new' | 'started' | 'closed' = 'new';

  constructor(source: GatewaySource, logger: Logger, announce: (kind: ListKind) => void) {
    this.#source = source;
    this.#logger = logger;
    this.#announce = announce;
  }

  /** Whether the listener knows `kind` already. */
  knows(kind: ListKind): boolean {
    return this.#known.has(kind);
  }

  /** The listener was shown `items` of `kind` (kept only when it knew nothing of it yet). */
  learn(kind: ListKind, items: readonly unknown[]): void {
    if (this.#state !== 'closed' && !this.#known.has(kind))
      this.#known.set(kind, fingerprint(items));
  }

  /** Starts following the source's events; a change since what was learnt is announced. */
  start(): void {
    if (this.#state !== 'new') return;
    this.#state = 'started';
    const source = this.#source;
    this.#subscriptions.push(
      source.onToolsChanged(() => this.#toolsMayHaveChanged()),
      source.onServersChanged(() => this.#serversMayHaveChanged()),
      source.onListsChanged(() => this.#compareLists()),
    );
    this.#toolsMayHaveChanged();
    this.#serversMayHaveChanged();
  }

  /** Stops following the source; nothing is announced after. Idempotent. */
  close(): void {
    this.#state = 'closed';
    for (const subscription of this.#subscriptions.splice(0)) subscription.dispose();
  }

  /** The source's tools changed: compared once the current burst of events is over. */
  #toolsMayHaveChanged(): void {
    if (this.#toolsCheckQueued) return;
    this.#toolsCheckQueued = true;
    queueMicrotask(() => {
      this.#toolsCheckQueued = false;
      if (this.#state === 'started')
        this.#announceIf('tools', fingerprint(wireTools(this.#source)));
    });
  }

  /** A server came or went: its resources and prompts may have too, when the set really changed. */
  #serversMayHaveChanged(): void {
    const connected = this.#source.connectedServers().join('\n');
    if (connected === this.#connected) return;
    this.#connected = connected;
    this.#compareLists();
  }

  /**
   * Lists the resources and prompts and compares them with what the listener knows: one
   * comparison at a time (each lists every server), and at most one more queued behind it.
   */
  #compareLists(): void {
    if (this.#compareQueued) return;
    this.#compareQueued = true;
    this.#compare = this.#compare
      .then(async () => {
        this.#compareQueued = false;
        if (this.#state !== 'started') return;
        const [resources, prompts] = await Promise.all([
          wireResources(this.#source),
          wirePrompts(this.#source),
        ]);
        if (this.#state !== 'started') return;
        this.#announceIf('resources', fingerprint(resources));
        this.#announceIf('prompts', fingerprint(prompts));
      })
      .catch((error: unknown) =>
        this.#logger.warn('gateway: comparing resources and prompts failed', {
          error: toMcpHostError(error).message,
        }),
      );
  }

  /** Announces `kind` when `now` differs from what the listener knows (first time: learns it). */
  #announceIf(kind: ListKind, now: string): void {
    const known = this.#known.get(kind);
    this.#known.set(kind, now);
    if (known === undefined || known === now) return;
    this.#announce(kind);
  }
}
