import type { CallOptions } from '../client/client-options.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import type { Logger } from '../internal/logger.js';
import { matchesUriTemplate } from '../protocol/uri-template.js';
import type {
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from '../protocol/types.js';
import type { ToolNamingOptions, ToolRef } from './naming/namer.js';
import { soleSkillOwner } from './host-skills.js';
import { ToolNames } from './naming/tool-names.js';
import { registeredServer, type ServerSlot } from './slot/server-slot.js';

/**
 * The options of a host's `readResource` and `getPrompt`: the caller's signal, and the request's
 * own input handlers and resumption (the modern era's `input_required` rounds; see `CallOptions`).
 */
export type HostRequestOptions = Pick<CallOptions, 'signal' | 'input' | 'resume' | 'traceContext'>;

/**
 * Resources and prompts across a host's servers: listed from every ready server; a resource read
 * (or subscription) routed by URI to the first connected server that lists it, else to the first
 * whose resource template matches it (or to the one named); a prompt got by its namespaced name
 * (the tools' naming scheme, its own namespace); a completion routed by its reference.
 */
export class HostResources {
  /** The registered servers, by name (the host's own map). */
  readonly #servers: ReadonlyMap<string, ServerSlot>;
  readonly #logger: Logger;
  readonly #promptNames: ToolNames;
  /** The servers whose skills hold a URI (`HostSkills.ownersOf`). */
  readonly #skillOwners: (uri: string) => Promise<string[]>;

  constructor(
    servers: ReadonlyMap<string, ServerSlot>,
    naming: ToolNamingOptions | undefined,
    logger: Logger,
    skillOwners: (uri: string) => Promise<string[]> = () => Promise.resolve([]),
  ) {
    this.#servers = servers;
    this.#skillOwners = skillOwners;
    this.#promptNames = new ToolNames(naming);
    this.#logger = logger;
  }

  /** Every ready server's resources, each with the server it comes from. */
  async resources(): Promise<Array<Resource & { server: string }>> {
    const lists = await Promise.allSettled(
      this.#connected()
        .filter((slot) => slot.client?.session?.capabilities.resources !== undefined)
        .map(async (slot) => {
          const { resources } = await slot.client!.listResources();
          return resources.map((resource) => ({ ...resource, server: slot.name }));
        }),
    );
    return this.#fulfilled(lists);
  }

  /** Every ready server's resource templates, each with the server it comes from. */
  async resourceTemplates(): Promise<Array<ResourceTemplate & { server: string }>> {
    const lists = await Promise.allSettled(
      this.#connected()
        .filter((slot) => slot.client?.session?.capabilities.resources !== undefined)
        .map(async (slot) => {
          const { resourceTemplates } = await slot.client!.listResourceTemplates();
          return resourceTemplates.map((template) => ({ ...template, server: slot.name }));
        }),
    );
    return this.#fulfilled(lists);
  }

  /**
   * Reads a resource, routed by URI to the server that listed it (or named by `server`); `input`
   * and `resume` are the request's own input rounds (modern era, as `CallOptions` has them).
   */
  async readResource(
    uri: string,
    options: HostRequestOptions & { server?: string } = {},
  ): Promise<ReadResourceResult> {
    const slot =
      options.server !== undefined ? this.#slot(options.server) : await this.#ownerOf(uri);
    const client = await slot.ready();
    const { server: _server, ...request } = options;
    return client.readResource(uri, request);
  }

  /**
   * Subscribes to a resource's updates on the server that owns the URI (as `readResource` routes
   * it), kept across that server's reconnections. Resolves with the server's name.
   */
  async subscribeResource(
    uri: string,
    options: { server?: string; signal?: AbortSignal } = {},
  ): Promise<string> {
    const slot =
      options.server !== undefined ? this.#slot(options.server) : await this.#ownerOf(uri);
    await slot.subscribeResource(uri, { signal: options.signal });
    return slot.name;
  }

  /** Ends a subscription on the server named (the one `subscribeResource` resolved with). */
  async unsubscribeResource(
    uri: string,
    options: { server: string; signal?: AbortSignal },
  ): Promise<void> {
    await this.#slot(options.server).unsubscribeResource(uri, { signal: options.signal });
  }

  /**
   * Completes an argument of a prompt (by its namespaced name) or of a resource template (by its
   * URI template), on the server that owns it. `INVALID_ARGUMENT` for an unknown prompt or
   * template; `CAPABILITY_NOT_SUPPORTED` when that server did not declare `completions`.
   */
  async complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context: { arguments?: Record<string, string> } = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<CompleteResult> {
    const target = await this.completionTarget(ref);
    const client = await this.#slot(target.server).ready();
    if (client.session?.capabilities.completions === undefined)
      throw new McpHostError('CAPABILITY_NOT_SUPPORTED', 'the server does not offer completions', {
        serverName: target.server,
        method: 'completion/complete',
      });
    return client.complete(target.ref, argument, context, options);
  }

  /** The server a completion reference belongs to, and the reference in that server's terms. */
  async completionTarget(
    ref: CompletionReference,
  ): Promise<{ server: string; ref: CompletionReference }> {
    if (ref.type === 'ref/prompt') {
      const target = await this.#resolvePrompt(ref.name);
      if (target === undefined || !this.#servers.has(target.server))
        throw new McpHostError('INVALID_ARGUMENT', `no prompt is named '${ref.name}'`, {
          details: { prompt: ref.name },
        });
      return { server: target.server, ref: { type: 'ref/prompt', name: target.tool } };
    }
    const templates = await this.resourceTemplates();
    const owner =
      templates.find((template) => template.uriTemplate === ref.uri) ??
      (await this.resources()).find((resource) => resource.uri === ref.uri);
    if (owner === undefined)
      throw new McpHostError('INVALID_ARGUMENT', `no resource template is '${ref.uri}'`, {
        details: { uri: ref.uri },
      });
    return { server: owner.server, ref };
  }

  /** Every ready server's prompts under namespaced names (`mcp__{server}__{prompt}`). */
  async prompts(): Promise<Array<Prompt & { server: string; originalName: string }>> {
    const lists = await Promise.allSettled(
      this.#connected()
        .filter((slot) => slot.client?.session?.capabilities.prompts !== undefined)
        .map(async (slot) => {
          const { prompts } = await slot.client!.listPrompts();
          this.#promptNames.setServer(
            slot.name,
            prompts.map((prompt) => prompt.name),
          );
          return prompts.flatMap((prompt) => {
            const name = this.#promptNames.exposed(slot.name, prompt.name);
            return name === undefined
              ? []
              : [{ ...prompt, name, originalName: prompt.name, server: slot.name }];
          });
        }),
    );
    return this.#fulfilled(lists);
  }

  /** The server a namespaced prompt name belongs to, or undefined. */
  async promptServer(name: string): Promise<string | undefined> {
    const target = await this.#resolvePrompt(name);
    return target === undefined || !this.#servers.has(target.server) ? undefined : target.server;
  }

  /** Gets a prompt by its namespaced name (`input`, `resume`: as for `readResource`). */
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: HostRequestOptions = {},
  ): Promise<GetPromptResult> {
    const target = await this.#resolvePrompt(name);
    if (target === undefined || !this.#servers.has(target.server))
      throw new McpHostError('INVALID_ARGUMENT', `no prompt is named '${name}'`, {
        details: { prompt: name },
      });
    const client = await this.#slot(target.server).ready();
    return client.getPrompt(target.tool, args, options);
  }

  async #resolvePrompt(name: string): Promise<ToolRef | undefined> {
    const target = this.#promptNames.resolve(name);
    if (target !== undefined) return target;
    // Prompt names are assigned when prompts are listed: list them if this host has not yet.
    await this.prompts();
    return this.#promptNames.resolve(name);
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
    return [...this.#servers.values()].filter((slot) => slot.client !== undefined);
  }

  #slot(name: string): ServerSlot {
    return registeredServer(this.#servers, name);
  }

  /**
   * The first connected server whose listing has `uri`, else the server whose listed skills hold
   * it (a skill's file: INVALID_ARGUMENT when several servers list that skill), else the first
   * with a resource template that matches it (RFC 6570 level 1).
   */
  async #ownerOf(uri: string): Promise<ServerSlot> {
    const slots = this.#connected().filter(
      (slot) => slot.client?.session?.capabilities.resources !== undefined,
    );
    for (const slot of slots) {
      const listing = await slot.client?.listResources().catch(() => undefined);
      if (listing?.resources.some((resource) => resource.uri === uri) === true) return slot;
    }
    // A skill's files (only its SKILL.md is usually listed) are its server's, by skill root.
    const owners = await this.#skillOwners(uri).catch(() => []);
    if (owners.length > 0) return this.#slot(soleSkillOwner(uri, owners));
    for (const slot of slots) {
      const listing = await slot.client?.listResourceTemplates().catch(() => undefined);
      const templates = listing?.resourceTemplates ?? [];
      if (templates.some((template) => matchesUriTemplate(template.uriTemplate, uri))) return slot;
    }
    throw new McpHostError('INVALID_ARGUMENT', `no connected server lists the resource '${uri}'`, {
      details: { uri },
    });
  }
}
