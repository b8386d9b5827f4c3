/**
 * Resources keep their URIs (no renaming): a read is routed to the server that listed the URI.
 * Two servers may list the same URI (two filesystem servers both offering `file:///etc/hosts`);
 * such a URI is ambiguous, reported by `conflicts()`, and never routed by guessing: the caller
 * names the server. Pure: no I/O.
 */

/** A URI listed by more than one server. */
export interface ResourceConflict {
  readonly uri: string;
  /** Sorted. */
  readonly servers: readonly string[];
}

export class ResourceRoutes {
  /** URI to the servers that listed it. */
  readonly #owners = new Map<string, Set<string>>();
  /** Server to the URIs it listed. */
  readonly #listed = new Map<string, ReadonlySet<string>>();

  /** Replaces what one server lists. */
  setServer(server: string, uris: Iterable<string>): void {
    this.deleteServer(server);
    const listed = new Set(uris);
    this.#listed.set(server, listed);
    for (const uri of listed) {
      let owners = this.#owners.get(uri);
      if (owners === undefined) this.#owners.set(uri, (owners = new Set()));
      owners.add(server);
    }
  }

  /** Forgets one server's resources. */
  deleteServer(server: string): void {
    const listed = this.#listed.get(server);
    if (listed === undefined) return;
    this.#listed.delete(server);
    for (const uri of listed) {
      const owners = this.#owners.get(uri);
      owners?.delete(server);
      if (owners?.size === 0) this.#owners.delete(uri);
    }
  }

  /** Every server that listed this exact URI, sorted. */
  servers(uri: string): string[] {
    return [...(this.#owners.get(uri) ?? [])].sort(compare);
  }

  /** The one server that listed the URI; undefined when none did or several did. */
  route(uri: string): string | undefined {
    const owners = this.#owners.get(uri);
    if (owners === undefined || owners.size !== 1) return undefined;
    const [only] = owners;
    return only;
  }

  /** URIs listed by more than one server, sorted by URI. */
  conflicts(): ResourceConflict[] {
    const found: ResourceConflict[] = [];
    for (const [uri, owners] of this.#owners)
      if (owners.size > 1) found.push({ uri, servers: [...owners].sort(compare) });
    return found.sort((a, b) => compare(a.uri, b.uri));
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
