import { McpHostError } from '../errors/mcp-host-error.js';
import type { Logger } from '../internal/logger.js';
import type { GetPromptResult, Prompt, ReadResourceResult, Resource } from '../protocol/types.js';
import type { HostCatalogue } from './host-catalogue.js';
import type { ServerSlot } from './server-slot.js';

/** What resource and prompt routing needs from its host. */
export interface HostResourcesOptions {
  /** The registered servers, by name (the host's own map). */
  slots: ReadonlyMap<string, ServerSlot>;
  catalogue: HostCatalogue;
  logger: Logger;
  /** The server registered under `name`, or `INVALID_ARGUMENT`. */
  slot: (name: string) => ServerSlot;
}

/**
 * Resources and prompts across a host's servers: listed from every ready server, a resource
 * read routed by URI to the server that lists it, a prompt got by its namespaced name.
 */
export class HostResources {
  readonly #slots: ReadonlyMap<string, ServerSlot>;
  readonly #catalogue: HostCatalogue;
  readonly #logger: Logger;
  readonly #slot: (name: string) => ServerSlot;

  constructor(options: HostResourcesOptions) {
    this.#slots = options.slots;
    this.#catalogue = options.catalogue;
    this.#logger = options.logger;
    this.#slot = options.slot;
  }

  /** Every ready server's resources, each with the server it comes from. */
  async resources(): Promise<Array<Resource & { server: string }>> {
    const lists = await Promise.allSettled(
      this.#connected()
        .filter((slot) => slot.client?.session?.capabilities.resources !== undefined)
        .map(async (slot) => {
          const listing = await slot.client!.listResources();
          return listing.items.map((resource) => ({ ...resource, server: slot.name }));
        }),
    );
    return this.#fulfilled(lists);
  }

  /** Reads a resource, routed by URI to the server that listed it (or named by `server`). */
  async readResource(
    uri: string,
    options: { server?: string; signal?: AbortSignal } = {},
  ): Promise<ReadResourceResult> {
    const slot =
      options.server !== undefined ? this.#slot(options.server) : await this.#ownerOf(uri);
    const client = await slot.ready();
    return client.readResource(uri, { signal: options.signal });
  }

  /** Every ready server's prompts under namespaced names (`mcp__{server}__{prompt}`). */
  async prompts(): Promise<Array<Prompt & { server: string; originalName: string }>> {
    const lists = await Promise.allSettled(
      this.#connected()
        .filter((slot) => slot.client?.session?.capabilities.prompts !== undefined)
        .map(async (slot) => {
          const listing = await slot.client!.listPrompts();
          const names = this.#catalogue.setPrompts(
            slot.name,
            listing.items.map((prompt) => prompt.name),
          );
          return listing.items.flatMap((prompt, i) =>
            names[i] === undefined
              ? []
              : [{ ...prompt, name: names[i], originalName: prompt.name, server: slot.name }],
          );
        }),
    );
    return this.#fulfilled(lists);
  }

  /** Gets a prompt by its namespaced name. */
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<GetPromptResult> {
    let target = this.#catalogue.resolvePrompt(name);
    if (target === undefined) {
      // Prompt names are assigned when prompts are listed: list them if this host has not yet.
      await this.prompts();
      target = this.#catalogue.resolvePrompt(name);
    }
    if (target === undefined || !this.#slots.has(target.server))
      throw new McpHostError('INVALID_ARGUMENT', `no prompt is named '${name}'`, {
        details: { prompt: name },
      });
    const client = await this.#slot(target.server).ready();
    return client.getPrompt(target.prompt, args, options);
  }

  /** The lists that arrived; a server whose list failed is left out (and logged), not fatal. */
  #fulfilled<T>(lists: PromiseSettledResult<T[]>[]): T[] {
    const items: T[] = [];
    for (const list of lists) {
      if (list.status === 'fulfilled') items.push(...list.value);
      else this.#logger.warn('host: a server failed to list', { error: String(list.reason) });
    }
    return items;
  }

  #connected(): ServerSlot[] {
    return [...this.#slots.values()].filter((slot) => slot.client !== undefined);
  }

  async #ownerOf(uri: string): Promise<ServerSlot> {
    for (const slot of this.#connected()) {
      const client = slot.client;
      if (client?.session?.capabilities.resources === undefined) continue;
      const listing = await client.listResources().catch(() => undefined);
      if (listing?.items.some((resource) => resource.uri === uri) === true) return slot;
    }
    throw new McpHostError('INVALID_ARGUMENT', `no connected server lists the resource '${uri}'`, {
      details: { uri },
    });
  }
}
