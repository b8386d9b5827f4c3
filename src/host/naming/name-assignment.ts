/**
 * Assigning exposed names to a set of (server, tool) pairs: server keys that cannot be namespaces,
 * and the collision rule of tool-names.ts (a clean plain name is kept, every other clashing name
 * is hashed, and hashed names that still clash move to the next seed). Pure: no I/O.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import {
  compare,
  compareRefs,
  Namer,
  type Candidate,
  type ServerKeyProblem,
  type ToolNamingOptions,
  type ToolRef,
} from './namer.js';

/** Further hash seeds tried when a hashed name clashes with another name (practically never). */
const MAX_HASH_ATTEMPTS = 16;

/** Pairs that wanted the same name, and what each got. */
export interface NameCollision {
  /** The name they all wanted. */
  readonly name: string;
  /** Sorted by server, then tool. */
  readonly pairs: readonly (ToolRef & { readonly exposed: string })[];
}

/** The outcome of naming a set of pairs. */
export interface NameAssignment {
  /** Exposed name to pair, in (server, tool) order. */
  readonly names: ReadonlyMap<string, ToolRef>;
  /** Every clash and how it was resolved, in name order. Never silent. */
  readonly collisions: readonly NameCollision[];
  /** Servers left out, in server order. */
  readonly serverProblems: readonly ServerKeyProblem[];
  /** The exposed name of a pair, if it got one. */
  exposed(server: string, tool: string): string | undefined;
}

/**
 * The exposed name of one pair when it clashes with nothing: the plain name, or the hashed one
 * when the plain name is too long (or empty). Throws `INVALID_ARGUMENT` for bad options or a server
 * key that cannot be a namespace.
 */
export function exposedName(server: string, tool: string, options?: ToolNamingOptions): string {
  return exposedWith(new Namer(options), server, tool);
}

/**
 * The servers among `servers` whose tools an exposed name can belong to, from the name's
 * structure alone (nothing is connected): the server whose head (`prefix`, separator, its
 * namespace, separator) starts the name. A namespace holds no separator, so at most one server
 * matches under the default scheme; with `format` the structure is the caller's, and every server
 * is a candidate. Servers whose key cannot be a namespace are never candidates.
 */
export function candidateServers(
  name: string,
  servers: Iterable<string>,
  options?: ToolNamingOptions,
): string[] {
  const namer = new Namer(options);
  const all = [...servers];
  if (namer.format !== undefined) return all;
  return all.filter(
    (server) => namer.serverProblem(server) === undefined && name.startsWith(namer.head(server)),
  );
}

export function exposedWith(namer: Namer, server: string, tool: string): string {
  if (typeof server !== 'string' || typeof tool !== 'string')
    throw new McpHostError('INVALID_ARGUMENT', 'tool naming: server and tool must be strings');
  const problem = namer.serverProblem(server);
  if (problem !== undefined)
    throw new McpHostError('INVALID_ARGUMENT', problem.message, { serverName: server });
  const candidate = namer.candidate({ server, tool });
  return candidate.mustHash ? namer.hashed(candidate, 0) : candidate.plain;
}

/**
 * Why each of these server keys cannot be a namespace (empty, contains the separator, too long,
 * or sanitises to the same namespace as another key), in server order; empty when all can. A host
 * can call it before adding a server, to refuse the key instead of losing two servers' tools.
 */
export function serverKeyProblems(
  servers: Iterable<string>,
  options?: ToolNamingOptions,
): ServerKeyProblem[] {
  return findServerProblems(new Namer(options), [...new Set(servers)].sort(compare));
}

function findServerProblems(namer: Namer, sortedServers: readonly string[]): ServerKeyProblem[] {
  const problems = new Map<string, ServerKeyProblem>();
  const byNamespace = new Map<string, string[]>();
  for (const server of sortedServers) {
    if (typeof server !== 'string')
      throw new McpHostError('INVALID_ARGUMENT', 'tool naming: a server key must be a string');
    const problem = namer.serverProblem(server);
    if (problem !== undefined) {
      problems.set(server, problem);
      continue;
    }
    // With `format`, the name alone keeps servers apart (clashes are resolved like any other).
    if (namer.format !== undefined) continue;
    const namespace = namer.namespace(server) ?? namer.clean(server);
    const group = byNamespace.get(namespace);
    if (group === undefined) byNamespace.set(namespace, [server]);
    else group.push(server);
  }
  for (const [namespace, group] of byNamespace) {
    if (group.length < 2) continue;
    for (const server of group)
      problems.set(server, {
        server,
        reason: 'same-as-another',
        message: `server keys ${group.map((s) => JSON.stringify(s)).join(', ')} all become the namespace ${JSON.stringify(namespace)}; rename all but one`,
        others: group.filter((other) => other !== server),
      });
  }
  if (namer.passThrough && sortedServers.length > 1) {
    // Each server's names are its own: two servers could offer the same one.
    const list = sortedServers.map((s) => JSON.stringify(s)).join(', ');
    for (const server of sortedServers)
      if (!problems.has(server))
        problems.set(server, {
          server,
          reason: 'pass-through',
          message: `tool naming passes names through (naming.passThrough), so it serves one server only, and there are ${sortedServers.length}: ${list}`,
          others: sortedServers.filter((other) => other !== server),
        });
  }
  return [...problems.values()].sort((a, b) => compare(a.server, b.server));
}

/**
 * Names every pair: a pure function of the set of pairs (order and duplicates do not matter).
 * Throws `INVALID_ARGUMENT` for bad options or a pair that is not two strings.
 */
export function assignNames(pairs: Iterable<ToolRef>, options?: ToolNamingOptions): NameAssignment {
  return assignWith(new Namer(options), pairs);
}

export function assignWith(namer: Namer, pairs: Iterable<ToolRef>): NameAssignment {
  const byServer = new Map<string, Set<string>>();
  for (const pair of pairs) {
    if (typeof pair?.server !== 'string' || typeof pair.tool !== 'string')
      throw new McpHostError(
        'INVALID_ARGUMENT',
        'tool naming: every pair needs a string server and a string tool',
      );
    let tools = byServer.get(pair.server);
    if (tools === undefined) byServer.set(pair.server, (tools = new Set()));
    tools.add(pair.tool);
  }
  const servers = [...byServer.keys()].sort(compare);
  const serverProblems = findServerProblems(namer, servers);
  const excluded = new Set(serverProblems.map((problem) => problem.server));

  // Candidates in (server, tool) order, grouped by the plain name they want.
  const candidates: Candidate[] = [];
  const wanted = new Map<string, Candidate[]>();
  for (const server of servers) {
    if (excluded.has(server)) continue;
    for (const tool of [...byServer.get(server)!].sort(compare)) {
      const candidate = namer.candidate({ server, tool });
      candidates.push(candidate);
      if (candidate.mustHash) continue;
      const group = wanted.get(candidate.plain);
      if (group === undefined) wanted.set(candidate.plain, [candidate]);
      else group.push(candidate);
    }
  }

  const exposed = new Map<Candidate, string>();
  const plainNames = new Set<string>();
  const hashed: Candidate[] = [];
  const clashes = new Map<string, Set<Candidate>>();
  for (const [name, group] of wanted) {
    const keeper =
      group.length === 1 ? group[0] : onlyOne(group.filter((candidate) => candidate.clean));
    for (const candidate of group) {
      if (candidate === keeper) {
        exposed.set(candidate, name);
        plainNames.add(name);
      } else hashed.push(candidate);
    }
    if (group.length > 1) clashes.set(name, new Set(group));
  }
  for (const candidate of candidates) if (candidate.mustHash) hashed.push(candidate);

  // Hashed names that clash with a plain name or with each other move to the next seed, all of
  // them (so the outcome does not depend on order); a plain name is never moved.
  const holders = new Map<string, Candidate>();
  for (const [candidate, name] of exposed) holders.set(name, candidate);
  const attempts = new Map<Candidate, number>();
  let pending = hashed;
  for (let round = 0; pending.length > 0; round++) {
    if (round === MAX_HASH_ATTEMPTS)
      throw new McpHostError('INTERNAL', 'tool naming: could not make hashed names unique');
    const byName = new Map<string, Candidate[]>();
    for (const candidate of pending) {
      const name = namer.hashed(candidate, attempts.get(candidate) ?? 0);
      const group = byName.get(name);
      if (group === undefined) byName.set(name, [candidate]);
      else group.push(candidate);
    }
    const next: Candidate[] = [];
    for (const [name, group] of byName) {
      const holder = holders.get(name);
      if (holder === undefined && group.length === 1) {
        exposed.set(group[0]!, name);
        holders.set(name, group[0]!);
        continue;
      }
      const clash = clashes.get(name) ?? new Set<Candidate>();
      if (holder !== undefined) clash.add(holder);
      for (const candidate of group) {
        clash.add(candidate);
        attempts.set(candidate, (attempts.get(candidate) ?? 0) + 1);
        next.push(candidate);
      }
      clashes.set(name, clash);
    }
    pending = next;
  }

  const names = new Map<string, ToolRef>();
  const byPair = new Map<string, Map<string, string>>();
  for (const candidate of candidates) {
    const name = exposed.get(candidate)!;
    const { server, tool } = candidate.ref;
    names.set(name, candidate.ref);
    let tools = byPair.get(server);
    if (tools === undefined) byPair.set(server, (tools = new Map<string, string>()));
    tools.set(tool, name);
  }
  const collisions: NameCollision[] = [...clashes]
    .sort(([a], [b]) => compare(a, b))
    .map(([name, group]) => ({
      name,
      pairs: [...group]
        .sort((a, b) => compareRefs(a.ref, b.ref))
        .map((candidate) => ({ ...candidate.ref, exposed: exposed.get(candidate)! })),
    }));
  return {
    names,
    collisions,
    serverProblems,
    exposed: (server, tool) => byPair.get(server)?.get(tool),
  };
}

function onlyOne<T>(items: readonly T[]): T | undefined {
  return items.length === 1 ? items[0] : undefined;
}
