import { McpHostError } from '../errors/mcp-host-error.js';
import type { Logger } from '../internal/logger.js';
import type { LoadedSkill, LoadSkillOptions, SkillFile } from '../client/skills/load-skill.js';
import {
  skillPathOf,
  skillRootOf,
  type SkillDirectoryPage,
  type SkillEntry,
} from '../client/skills/skill-entry.js';
import type { ToolNamingOptions } from './naming/namer.js';
import { ToolNames } from './naming/tool-names.js';
import { registeredServer, type ServerSlot } from './slot/server-slot.js';

/** One skill of one of the host's servers, as listed (no file of it has been read). */
export interface HostSkill {
  /**
   * The namespaced name (`mcp__{server}__{skill}`, the tools' scheme in a namespace of its own):
   * what `host.loadSkill` takes and a model is shown.
   */
  readonly name: string;
  /** The host's name for the server that serves it. */
  readonly server: string;
  /** The skill's own name (its frontmatter `name`). */
  readonly skillName: string;
  /** Its frontmatter `description`. */
  readonly description: string;
  /** The URI of its `SKILL.md` on that server. */
  readonly uri: string;
  /** The entry as listed: the frontmatter and the manifest every file is verified against. */
  readonly entry: SkillEntry;
}

/** A server that declared the skills extension, and whether it serves directory reads. */
export interface SkillServer {
  /** The host's name for the server. */
  readonly server: string;
  /** Whether it declared `directoryRead` (it serves `resources/directory/read`). */
  readonly directoryRead: boolean;
}

/** The options of `getSkill` and `readSkillDirectory`: `server` names the server to ask. */
export interface SkillRequestOptions {
  server?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** One skill's entry (`skills/get`), and the host's name for the server it comes from. */
export interface HostSkillEntry {
  readonly server: string;
  readonly entry: SkillEntry;
}

/** A skill the host loaded: its verified files, and where it comes from. */
export interface LoadedHostSkill extends LoadedSkill {
  /** The namespaced name it was loaded by. */
  readonly name: string;
  /** The host's name for the server it comes from. */
  readonly server: string;
}

/**
 * Skills across a host's servers (the `io.modelcontextprotocol/skills` extension): listed from
 * every ready server that declared the extension (the others are never asked), named per server
 * like tools so that same-named skills of two servers never shadow each other, and loaded, read
 * and verified, only when `loadSkill` asks for one.
 */
export class HostSkills {
  readonly #servers: ReadonlyMap<string, ServerSlot>;
  readonly #logger: Logger;
  readonly #names: ToolNames;
  /** The entries last listed, by server, then by the per-server key the names are made from. */
  #entries = new Map<string, Map<string, SkillEntry>>();

  constructor(
    servers: ReadonlyMap<string, ServerSlot>,
    naming: ToolNamingOptions | undefined,
    logger: Logger,
  ) {
    this.#servers = servers;
    this.#names = new ToolNames(naming);
    this.#logger = logger;
  }

  /** Every ready server's skills (a server whose listing fails is left out and logged). */
  async skills(options: { signal?: AbortSignal } = {}): Promise<HostSkill[]> {
    const slots = [...this.#servers.values()].filter(
      (slot) => slot.client?.supportsSkills === true,
    );
    const lists = await Promise.allSettled(
      slots.map(async (slot) => {
        const { skills } = await slot.client!.listSkills(options);
        return { server: slot.name, entries: keyed(skills) };
      }),
    );
    const entries = new Map<string, Map<string, SkillEntry>>();
    for (const list of lists) {
      if (list.status === 'fulfilled') entries.set(list.value.server, list.value.entries);
      else
        this.#logger.warn('host: a server failed to list its skills', {
          error: String(list.reason),
        });
    }
    this.#entries = entries;
    this.#names.assign(
      [...entries].flatMap(([server, keys]) => [...keys.keys()].map((tool) => ({ server, tool }))),
    );
    return [...entries].flatMap(([server, keys]) =>
      [...keys].flatMap(([key, entry]) => {
        const name = this.#names.exposed(server, key);
        return name === undefined
          ? []
          : [
              {
                name,
                server,
                skillName: entry.frontmatter.name,
                description: entry.frontmatter.description,
                uri: entry.uri,
                entry,
              },
            ];
      }),
    );
  }

  /**
   * Loads a skill by its namespaced name (listing the skills first if this host has not yet):
   * reads and verifies its files against the listed entry on the server it comes from.
   */
  async loadSkill(name: string, options: LoadSkillOptions = {}): Promise<LoadedHostSkill> {
    let found = this.#find(name);
    if (found === undefined) {
      await this.skills({ signal: options.signal });
      found = this.#find(name);
    }
    if (found === undefined || !this.#servers.has(found.server))
      throw new McpHostError('INVALID_ARGUMENT', `no skill is named '${name.slice(0, 200)}'`, {
        details: { skill: name.slice(0, 200) },
      });
    const client = await registeredServer(this.#servers, found.server).ready();
    const loaded = await client.loadSkill(found.entry, options);
    return Object.freeze({ ...loaded, name, server: found.server });
  }

  /**
   * Reads one file of a loaded skill from the server it came from (never another), verified
   * against the entry it was loaded from; a file that entry does not list is refused.
   */
  async readSkillFile(
    skill: LoadedHostSkill,
    uri: string,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<SkillFile> {
    const client = await registeredServer(this.#servers, skill.server).ready();
    return client.readSkillFile(skill.entry, uri, options);
  }

  /** The connected servers that declared the skills extension, in the host's order. */
  skillServers(): SkillServer[] {
    return [...this.#servers.values()].flatMap((slot) =>
      slot.client?.supportsSkills === true
        ? [{ server: slot.name, directoryRead: slot.client.supportsSkillDirectoryRead }]
        : [],
    );
  }

  /**
   * The servers whose listed skills hold `uri` (a skill's `SKILL.md`, directory, or a file or
   * directory under it), by the most specific skill root: from the skills last listed, listed
   * again when none holds it. Usually one; several when servers list the same skill URI.
   */
  async ownersOf(uri: string, options: { signal?: AbortSignal } = {}): Promise<string[]> {
    const known = this.#holders(uri);
    if (known.length > 0) return known;
    await this.skills(options);
    return this.#holders(uri);
  }

  /**
   * A skill's entry by its `SKILL.md` URI (`skills/get`), from the one server that lists it (or
   * the one named by `server`); see `soleSkillOwner`.
   */
  async getSkill(uri: string, options: SkillRequestOptions = {}): Promise<HostSkillEntry> {
    const { server, ...call } = options;
    const owner = server ?? soleSkillOwner(uri, await this.ownersOf(uri, call));
    const client = await registeredServer(this.#servers, owner).ready();
    return { server: owner, entry: await client.getSkill(uri, call) };
  }

  /** One page of a skill directory's children (`resources/directory/read`), routed as `getSkill`. */
  async readSkillDirectory(
    uri: string,
    options: SkillRequestOptions & { cursor?: string } = {},
  ): Promise<SkillDirectoryPage> {
    const { server, ...call } = options;
    const owner = server ?? soleSkillOwner(uri, await this.ownersOf(uri, call));
    const client = await registeredServer(this.#servers, owner).ready();
    return client.readSkillDirectory(uri, call);
  }

  #holders(uri: string): string[] {
    let best = -1;
    let holders: string[] = [];
    for (const [server, entries] of this.#entries) {
      if (!this.#servers.has(server)) continue;
      for (const entry of entries.values()) {
        const root = skillRootOf(entry.uri);
        if (uri !== root && uri !== entry.uri && !uri.startsWith(`${root}/`)) continue;
        if (root.length > best) {
          best = root.length;
          holders = [server];
        } else if (root.length === best && !holders.includes(server)) holders.push(server);
      }
    }
    return holders;
  }

  #find(name: string): { server: string; entry: SkillEntry } | undefined {
    const ref = this.#names.resolve(name);
    const entry = ref === undefined ? undefined : this.#entries.get(ref.server)?.get(ref.tool);
    return entry === undefined || ref === undefined ? undefined : { server: ref.server, entry };
  }
}

/**
 * One server's entries by a key unique on that server: the skill's name, or where several share a
 * name (the spec allows it), each one's skill path (`acme/billing/refunds`), or its URI.
 */
function keyed(skills: readonly SkillEntry[]): Map<string, SkillEntry> {
  const counts = new Map<string, number>();
  for (const skill of skills)
    counts.set(skill.frontmatter.name, (counts.get(skill.frontmatter.name) ?? 0) + 1);
  const keys = new Map<string, SkillEntry>();
  for (const skill of skills) {
    const name = skill.frontmatter.name;
    let key = counts.get(name) === 1 ? name : skillPathOf(skill.uri);
    if (keys.has(key)) key = skill.uri;
    if (!keys.has(key)) keys.set(key, skill);
  }
  return keys;
}

/**
 * The one server of `owners` (those of `ownersOf`, narrowed to a view's) that serves the skill URI
 * `uri`. INVALID_ARGUMENT when none does, or when several list it (a clash: the message names
 * them; the host cannot tell whose skill is meant, so it serves neither).
 */
export function soleSkillOwner(uri: string, owners: readonly string[], where = ''): string {
  const shown = uri.slice(0, 200);
  const [owner, ...others] = owners;
  if (owner === undefined)
    throw new McpHostError('INVALID_ARGUMENT', `no server${where} lists a skill at '${shown}'`, {
      details: { uri: shown },
    });
  if (others.length > 0)
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `the skill URI '${shown}' is served by several servers (${owners.map((name) => `'${name}'`).join(' and ')}): refused, as it is ambiguous`,
      { details: { uri: shown, servers: [...owners] } },
    );
  return owner;
}
