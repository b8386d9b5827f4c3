import { aboutServer, McpHostError } from '../../errors/mcp-host-error.js';
import type { Logger } from '../../internal/logger.js';
import { isObject } from '../../protocol/guards.js';
import { McpMethod } from '../../protocol/methods.js';
import {
  toSkillDirectoryPage,
  toSkillEntry,
  type SkillDirectoryPage,
  type SkillEntry,
  type SkillListing,
} from './skill-entry.js';

/**
 * The entries of a `skills/list`: the valid ones in `skills`; each invalid one left out, named in
 * `excluded` with why, and logged as a warning about the server.
 */
export function skillEntriesOf(
  items: readonly unknown[],
  serverName: string | undefined,
  logger: Logger,
): Pick<SkillListing, 'skills' | 'excluded'> {
  const skills: SkillEntry[] = [];
  const excluded: SkillListing['excluded'] = [];
  for (const item of items) {
    const entry = toSkillEntry(item);
    if ('invalid' in entry) {
      const uri = isObject(item) && typeof item.uri === 'string' ? item.uri : '<no uri>';
      excluded.push({ uri: uri.slice(0, 2048), reason: entry.invalid });
      logger.warn(
        aboutServer(serverName, `excluded skill '${uri.slice(0, 200)}': ${entry.invalid}`),
      );
    } else skills.push(entry);
  }
  return { skills, excluded };
}

/** The entry of a `skills/get` result for `uri`; anything else is a PROTOCOL_VIOLATION. */
export function skillGetEntry(
  result: unknown,
  uri: string,
  serverName: string | undefined,
): SkillEntry {
  const entry = toSkillEntry(isObject(result) ? result.skill : undefined);
  if (!('invalid' in entry) && entry.uri === uri) return entry;
  const why = 'invalid' in entry ? entry.invalid : `it is the entry of '${entry.uri}'`;
  throw new McpHostError('PROTOCOL_VIOLATION', `skills/get '${uri}': ${why}`, {
    serverName,
    method: McpMethod.SkillsGet,
    details: { skill: uri },
  });
}

/** The page of a `resources/directory/read` result; one without resources is a PROTOCOL_VIOLATION. */
export function skillDirectoryPageOf(
  result: unknown,
  uri: string,
  serverName: string | undefined,
): SkillDirectoryPage {
  const page = toSkillDirectoryPage(result);
  if (page !== undefined) return page;
  throw new McpHostError('PROTOCOL_VIOLATION', `'${uri}': no resources in the result`, {
    serverName,
    method: McpMethod.ResourcesDirectoryRead,
  });
}

/** A caller's entry, checked as if the server had sent it (INVALID_ARGUMENT if it is not one). */
export function callerSkillEntry(skill: SkillEntry, serverName: string | undefined): SkillEntry {
  const entry = toSkillEntry(skill);
  if ('invalid' in entry)
    throw new McpHostError('INVALID_ARGUMENT', `not a skill entry: ${entry.invalid}`, {
      serverName,
    });
  return entry;
}
