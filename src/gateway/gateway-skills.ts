/**
 * The skills extension (`io.modelcontextprotocol/skills`, SEP-2640) as the gateway serves it: the
 * skills of the servers its client may see, listed as one catalogue under the servers' own URIs,
 * each skill's entry, directory reads and (through `resources/read`) its files routed to the one
 * server that lists it.
 */
import { SKILLS_EXTENSION } from '../client/skills/skill-entry.js';
import { JsonRpcError, JsonRpcErrorCode } from '../errors/json-rpc-error.js';
import type { Logger } from '../internal/logger.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { isObject } from '../protocol/guards.js';
import { McpMethod } from '../protocol/methods.js';
import { toRequestError } from './gateway-errors.js';
import type { GatewaySource } from './gateway-source.js';
import { pageOf } from './pagination.js';

/**
 * The skills extension's entry of the gateway's capabilities, or undefined when no server of its
 * source declared the extension: `directoryRead: true` when one of them serves directory reads.
 */
export function skillsCapability(source: GatewaySource): Record<string, JsonObject> | undefined {
  const servers = source.skillServers();
  if (servers.length === 0) return undefined;
  return {
    [SKILLS_EXTENSION]: servers.some((server) => server.directoryRead)
      ? { directoryRead: true }
      : {},
  };
}

/**
 * `skills/list`, `skills/get` and `resources/directory/read` for one gateway. Results are the
 * method's own fields only: the session adds the modern era's (`resultType`, caching hints).
 */
export class GatewaySkills {
  readonly #source: GatewaySource;
  readonly #pageSize: number;
  readonly #logger: Logger;

  constructor(source: GatewaySource, pageSize: number, logger: Logger) {
    this.#source = source;
    this.#pageSize = pageSize;
    this.#logger = logger;
  }

  /**
   * A page of the skills of every server of the source that declared the extension, each entry
   * as its server listed it (`uri`, `frontmatter`, `resources`: entries are never split across
   * pages). A skill URI that several servers list is left out (and logged, naming them): whose
   * files a read of it would get could not be told.
   */
  async list(params: unknown, signal: AbortSignal): Promise<JsonObject> {
    const skills = await this.#source.skills({ signal });
    const servers = new Map<string, string[]>();
    for (const skill of skills)
      servers.set(skill.uri, [...(servers.get(skill.uri) ?? []), skill.server]);
    const entries: JsonObject[] = [];
    for (const skill of skills) {
      const owners = servers.get(skill.uri) ?? [];
      if (owners.length > 1) {
        if (owners[0] === skill.server)
          this.#logger.warn('gateway: a skill URI is listed by several servers; not served', {
            uri: skill.uri.slice(0, 200),
            servers: owners.join(', '),
          });
        continue;
      }
      const { uri, frontmatter, resources } = skill.entry;
      entries.push({
        uri,
        frontmatter: { ...frontmatter },
        resources: resources === 'dynamic' ? 'dynamic' : resources.map((file) => ({ ...file })),
      });
    }
    const page = pageOf(entries, params, this.#pageSize);
    return {
      skills: page.items,
      ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
    };
  }

  /** `skills/get`: the entry of the skill at `uri`, from its server; -32602 when none serves it. */
  async get(params: unknown, signal: AbortSignal, era: 'legacy' | 'modern'): Promise<JsonObject> {
    const uri = uriOf(params, McpMethod.SkillsGet);
    try {
      const { entry } = await this.#source.getSkill(uri, { signal });
      return { skill: { ...entry, frontmatter: { ...entry.frontmatter } } };
    } catch (error) {
      throw toRequestError(error, 'skill', era);
    }
  }

  /**
   * `resources/directory/read`: a page of the children of a skill directory, from the server
   * whose skills hold it (its `cursor` passed on). -32602 for a URI no server's skills hold, or
   * whose server does not serve directory reads; the server's own -32602 for a non-directory.
   */
  async readDirectory(
    params: unknown,
    signal: AbortSignal,
    era: 'legacy' | 'modern',
  ): Promise<JsonObject> {
    const uri = uriOf(params, McpMethod.ResourcesDirectoryRead);
    const cursor = isObject(params) ? params.cursor : undefined;
    if (cursor !== undefined && typeof cursor !== 'string')
      throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'the cursor must be a string');
    try {
      const page = await this.#source.readSkillDirectory(uri, {
        signal,
        ...(cursor === undefined ? {} : { cursor }),
      });
      return {
        resources: page.resources,
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
      };
    } catch (error) {
      throw toRequestError(error, 'skill', era);
    }
  }
}

function uriOf(params: unknown, method: string): string {
  if (!isObject(params) || typeof params.uri !== 'string')
    throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, `'${method}' needs a uri`);
  return params.uri;
}
