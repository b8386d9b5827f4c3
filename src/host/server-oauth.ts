/**
 * OAuth for the host's remote servers: the settings a server definition carries (`oauth`, plain
 * data), the `OAuthProvider` built from them once per server (it keeps the pending login between
 * `startAuthorization` and `completeAuthorization`), and the `auth_required` event. The auth layer
 * is loaded on first use (`import()`), so a host without OAuth servers never loads it.
 */
import type { TokenStore } from '../auth/token-store.js';
import type { TransportAuth } from '../transport/create-transport.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { MemoryStateStore, type StateStore } from '../state/state-store.js';
import type { TransportDefinition } from '../transport/transport-definition.js';

/** A remote server's OAuth settings (the config's `oauth:`); its presence turns OAuth on. */
export interface ServerOAuthOptions {
  /** `authorization_code` (default: a person logs in) or `client_credentials` (machine to machine). */
  grant?: 'authorization_code' | 'client_credentials';
  /** A client registered beforehand; without one, a metadata document or dynamic registration. */
  clientId?: string;
  /** The configured client's secret (a secret: masked everywhere). */
  clientSecret?: string;
  /** A PEM private key file of the configured client, for `private_key_jwt`. */
  privateKeyFile?: string;
  /** The JWS algorithm of `privateKeyFile` (default from the key: RS256, ES256, ...). */
  privateKeyAlg?: string;
  /** A Client ID Metadata Document URL, used as the client id where the server supports it. */
  clientMetadataUrl?: string;
  /** The scopes to ask for, instead of the server's challenge or metadata. */
  scopes?: readonly string[];
  /** The redirect URI of the authorization-code flow (default `http://127.0.0.1/callback`). */
  redirectUri?: string;
  /**
   * The authorization server's issuer URL: the one used when the server's resource metadata lists
   * several or none; a server whose metadata lists others but not this one is refused.
   */
  authorizationServer?: string;
}

/** A server needs a person to log in: open `url` (or call `startAuthorization` for one). */
export interface AuthRequiredEvent {
  type: 'auth_required';
  server: string;
  /** The scopes the login asks for (may be empty). */
  scopes: readonly string[];
  /** The authorization URL to open, when the login was started already. */
  url?: string;
  /** When that login expires (ms since the epoch). */
  expiresAt?: number;
  /** Why: `AUTH_REQUIRED`, `AUTH_LOGIN_REQUIRED`, or an HTTP 401/403. */
  error: { code: string; message: string };
}

/**
 * What the host uses of `OAuthProvider` (`mcp-host/auth`), named here so that no import, not
 * even a type-only one, ties the root entry to the auth layer and oauth4webapi.
 */
export interface ServerOAuthProvider extends TransportAuth {
  startAuthorization(options?: { signal?: AbortSignal }): Promise<AuthorizationUrl>;
  completeAuthorization(redirectUrlOrCode: string | URL): Promise<void>;
  logout(): Promise<void>;
}

/** The first step of a login: the URL to open, its `state`, and when it expires (ms). */
export interface AuthorizationUrl {
  url: URL;
  state: string;
  expiresAt: number;
}

/** The one OAuth provider of a server, made on first use. */
export class ServerOAuth {
  readonly #name: string;
  readonly #transport: TransportDefinition | (() => unknown);
  readonly #settings: ServerOAuthOptions;
  readonly #store: () => Promise<TokenStore>;
  readonly #host: { now?: () => number; requestTimeoutMs?: number };
  #provider: Promise<ServerOAuthProvider> | undefined;

  constructor(
    name: string,
    transport: TransportDefinition | (() => unknown),
    settings: ServerOAuthOptions,
    store: () => Promise<TokenStore>,
    host: { now?: () => number; requestTimeoutMs?: number } = {},
  ) {
    this.#name = name;
    this.#transport = transport;
    this.#settings = settings;
    this.#store = store;
    this.#host = host;
  }

  /** The server's URL; `INVALID_ARGUMENT` for a server OAuth cannot apply to. */
  get serverUrl(): string {
    const transport = this.#transport;
    if (typeof transport === 'function' || (transport.type !== 'http' && transport.type !== 'sse'))
      throw new McpHostError(
        'INVALID_ARGUMENT',
        'OAuth applies to servers reached over HTTP (type http or sse) given as a definition',
        { serverName: this.#name },
      );
    return transport.url;
  }

  provider(): Promise<ServerOAuthProvider> {
    if (this.#provider === undefined) {
      const created = this.#create();
      // A failed creation is forgotten (once), so the next call tries again.
      created.catch(() => {
        if (this.#provider === created) this.#provider = undefined;
      });
      this.#provider = created;
    }
    return this.#provider;
  }

  /** The first step of a login (see `McpHost.startAuthorization`). */
  async start(options: { signal?: AbortSignal } = {}): Promise<AuthorizationUrl> {
    try {
      const provider = await this.provider();
      return await provider.startAuthorization(
        options.signal === undefined ? {} : { signal: options.signal },
      );
    } catch (error) {
      throw this.#named(error);
    }
  }

  /** The second step: tokens for the redirect (or code), saved in the token store. */
  async complete(redirectUrlOrCode: string | URL): Promise<void> {
    try {
      const provider = await this.provider();
      await provider.completeAuthorization(redirectUrlOrCode);
    } catch (error) {
      throw this.#named(error);
    }
  }

  /** An auth error that does not name the server yet, naming it. */
  #named(error: unknown): unknown {
    if (!(error instanceof McpHostError) || error.serverName !== undefined) return error;
    return new McpHostError(error.code, error.message, {
      serverName: this.#name,
      ...(error.details === undefined ? {} : { details: error.details }),
      cause: error.cause,
    });
  }

  async #create(): Promise<ServerOAuthProvider> {
    const { OAuthProvider } = await import('../auth/oauth-provider.js');
    const s = this.#settings;
    const client =
      s.clientId === undefined
        ? undefined
        : {
            clientId: s.clientId,
            ...(s.clientSecret === undefined ? {} : { clientSecret: s.clientSecret }),
            ...(s.privateKeyFile === undefined
              ? {}
              : {
                  privateKey: {
                    pemFile: s.privateKeyFile,
                    ...(s.privateKeyAlg === undefined ? {} : { alg: s.privateKeyAlg }),
                  },
                }),
          };
    return new OAuthProvider({
      serverUrl: this.serverUrl,
      serverName: this.#name,
      store: await this.#store(),
      ...(s.grant === undefined ? {} : { grant: s.grant }),
      ...(client === undefined ? {} : { client }),
      ...(s.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: s.clientMetadataUrl }),
      ...(s.scopes === undefined ? {} : { scopes: s.scopes }),
      ...(s.redirectUri === undefined ? {} : { redirectUri: s.redirectUri }),
      ...(s.authorizationServer === undefined
        ? {}
        : { authorizationServer: s.authorizationServer }),
      ...(this.#host.now === undefined ? {} : { now: this.#host.now }),
      ...(this.#host.requestTimeoutMs === undefined
        ? {}
        : { requestTimeoutMs: this.#host.requestTimeoutMs }),
    });
  }
}

/**
 * The token store of a host: the one given, else a `FileTokenStore` on the host's state store
 * (in memory without one), made on first use.
 */
export function tokenStoreLoader(
  given: TokenStore | undefined,
  stateStore: StateStore | undefined,
): () => Promise<TokenStore> {
  let store: Promise<TokenStore> | undefined =
    given === undefined ? undefined : Promise.resolve(given);
  return () => {
    store ??= import('../auth/file-token-store.js').then(
      ({ FileTokenStore }) =>
        new FileTokenStore({ stateStore: stateStore ?? new MemoryStateStore() }),
    );
    return store;
  };
}

/** The `auth_required` event for a server that went to `needs_auth` because of `failure`. */
export function authRequiredEvent(server: string, failure: unknown): AuthRequiredEvent {
  const error =
    failure instanceof McpHostError
      ? { code: failure.code, message: failure.message }
      : { code: 'AUTH_REQUIRED', message: String(failure) };
  const details = failure instanceof McpHostError ? failure.details : undefined;
  const scopes = Array.isArray(details?.scopes)
    ? details.scopes.filter((scope): scope is string => typeof scope === 'string')
    : [];
  return {
    type: 'auth_required',
    server,
    scopes,
    ...(typeof details?.url === 'string' ? { url: details.url } : {}),
    ...(typeof details?.expiresAt === 'number' ? { expiresAt: details.expiresAt } : {}),
    error,
  };
}
