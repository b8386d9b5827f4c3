/**
 * The upstream connections of each named client of the gateway (a principal), for the servers
 * whose credentials are per user: one `McpHost` per client, holding only those servers, with the
 * client's own token store. Two clients never share a connection or a token to these servers:
 * each client's host is made from the same definitions and its own store, the store of one client
 * is refused for another, and the gateway's shared host may not hold these servers at all.
 */
import type { TokenStore } from '../auth/token-store.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import type { McpHostOptions } from '../host/host-options.js';
import { McpHost } from '../host/mcp-host.js';
import type { HostServerDefinition } from '../host/server-definition.js';

/** `GatewayOptions.perClient`: the servers whose upstream credentials are each client's own. */
export interface PerClientOptions {
  /**
   * The servers each named client reaches with its own credentials (HTTP servers with `oauth`):
   * one connection per (server, client). The gateway's `host` must not have servers of these
   * names (`INVALID_ARGUMENT`).
   */
  servers: readonly HostServerDefinition[];
  /**
   * The token store of one client: where its logins are kept. A store is one client's only (the
   * same store object given for a second client is refused with `INVALID_ARGUMENT`).
   */
  tokenStore(principal: string): TokenStore;
  /**
   * Options of each client's host besides its servers and token store (`views` with the same names
   * as the gateway's host, `naming`, `filter`, `roots`, ...). Default: none.
   */
  host?: Omit<McpHostOptions, 'servers' | 'tokenStore'>;
}

/** The per-client hosts of a gateway, made and started on a client's first connection. */
export class PerClientHosts {
  readonly #options: PerClientOptions;
  readonly #hosts = new Map<string, Promise<McpHost>>();
  readonly #stores = new Map<TokenStore, string>();
  readonly #redirectUri: () => string | undefined;
  #closed = false;

  /**
   * `redirectUri` gives the gateway's OAuth callback once it serves one: a client's host made
   * from then on logs in there (the servers whose `oauth` names no `redirectUri` of their own).
   */
  constructor(
    options: PerClientOptions,
    shared: McpHost,
    redirectUri: () => string | undefined = () => undefined,
  ) {
    this.#redirectUri = redirectUri;
    const sharedNames = new Set(shared.status().map((status) => status.name));
    for (const server of options.servers)
      if (sharedNames.has(server.name))
        throw new McpHostError(
          'INVALID_ARGUMENT',
          `the server '${server.name}' is per client (perClient.servers): the gateway's shared host must not have it too`,
          { serverName: server.name },
        );
    this.#options = options;
  }

  /** The names of the per-client servers. */
  get servers(): string[] {
    return this.#options.servers.map((server) => server.name);
  }

  /** The host of `principal`, started (its servers connected, or in `needs_auth`). */
  host(principal: string): Promise<McpHost> {
    if (this.#closed) return Promise.reject(new McpHostError('CONNECTION_CLOSED', 'closed'));
    let made = this.#hosts.get(principal);
    if (made === undefined) {
      made = this.#make(principal);
      // A host that could not be made is forgotten, so the client's next connection tries again.
      made.catch(() => {
        if (this.#hosts.get(principal) === made) this.#hosts.delete(principal);
      });
      this.#hosts.set(principal, made);
    }
    return made;
  }

  /** Closes every client's host. */
  async close(): Promise<void> {
    this.#closed = true;
    const hosts = await Promise.allSettled(this.#hosts.values());
    this.#hosts.clear();
    await Promise.all(
      hosts.flatMap((made) => (made.status === 'fulfilled' ? [made.value.close()] : [])),
    );
  }

  async #make(principal: string): Promise<McpHost> {
    const store = this.#options.tokenStore(principal);
    const owner = this.#stores.get(store);
    if (owner !== undefined && owner !== principal)
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `perClient.tokenStore gave the gateway client '${principal}' the token store of '${owner}': each client needs its own`,
      );
    this.#stores.set(store, principal);
    const redirectUri = this.#redirectUri();
    const host = new McpHost({
      ...this.#options.host,
      servers:
        redirectUri === undefined
          ? this.#options.servers
          : this.#options.servers.map((server) =>
              server.oauth === undefined || server.oauth.redirectUri !== undefined
                ? server
                : { ...server, oauth: { ...server.oauth, redirectUri } },
            ),
      tokenStore: store,
    });
    try {
      await host.start();
    } catch (error) {
      await host.close();
      throw error;
    }
    if (this.#closed) {
      await host.close();
      throw new McpHostError('CONNECTION_CLOSED', 'the gateway closed');
    }
    return host;
  }
}
