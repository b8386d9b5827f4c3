import * as oauth from 'oauth4webapi';
import { McpHostError } from '../errors/mcp-host-error.js';
import { addSecret } from '../errors/redact.js';
import type { Disposable } from '../internal/disposable.js';
import type { AuthChallenge, AuthProvider } from '../transport/http/auth-provider.js';
import { chooseAuthMethod, clientAuthFor, loadPrivateKey } from './client-authentication.js';
import { authError, named, resolveClient, type ConfiguredClient } from './client-identity.js';
import { DeviceFlow, type DeviceAuthorization } from './device-flow.js';
import {
  DpopKeyring,
  FOREIGN_DPOP_REASON,
  isForeignDpopRefusal,
  supportsDpop,
  withDpopNonceRetry,
  type DpopProof,
} from './dpop-proof.js';
import { createEgressFetch, type EgressFetchOptions } from './egress-fetch.js';
import { isLocalUrl } from './egress-policy.js';
import { FileTokenStore } from './file-token-store.js';
import { discoverOAuth, type OAuthDiscovery } from './oauth-discovery.js';
import { OAuthFlow, type AuthorizationStart, type TokenResponse } from './oauth-flow.js';
import {
  clientCredentialsGrant,
  jwtBearerGrant,
  JWT_BEARER_GRANT_TYPE,
  type AssertionSource,
  type GrantContext,
} from './oauth-grants.js';
import {
  boundedFetch,
  requestOptions,
  type OAuthFetch,
  type OAuthHttpOptions,
} from './oauth-http.js';
import { RefreshCoordinator, type RefreshTokensFunction } from './refresh-coordinator.js';
import {
  sameTokenKey,
  type ClientRegistration,
  type OAuthTokens,
  type TokenKey,
  type TokenStore,
} from './token-store.js';
import { parseWwwAuthenticate, type BearerChallenge } from './www-authenticate.js';

/** What the provider asks its owner to do when a person must log in. */
export interface AuthorizationRequest extends AuthorizationStart {
  /** The MCP server the login is for. */
  serverUrl: URL;
  /** The scopes asked for (may be empty). */
  scopes: readonly string[];
  /** Aborted when the request that needed the login is cancelled. */
  signal: AbortSignal;
}

export interface OAuthProviderOptions extends Omit<OAuthHttpOptions, 'signal'> {
  /** The MCP server's URL (the transport's `url`). */
  serverUrl: string | URL;
  /**
   * Where tokens and registrations are kept. Default: a `FileTokenStore` on the default state
   * file (the one `FileStateStore` uses), shared with every mcp-host process of this user.
   */
  store?: TokenStore;
  /**
   * The egress policy of the default `fetch` (`createEgressFetch`), used when `fetch` is not
   * given. `serverIsLocal` defaults to `isLocalUrl(serverUrl)`.
   */
  egress?: EgressFetchOptions;
  /**
   * `authorization_code` (default: a person logs in), `client_credentials` (machine to machine) or
   * `jwt_bearer` (RFC 7523: an assertion from `assertion`, e.g. a workload identity token or an
   * ID-JAG from `idJagAssertion`).
   */
  grant?: 'authorization_code' | 'client_credentials' | 'jwt_bearer';
  /** A client registered beforehand (needed for `client_credentials`). */
  client?: ConfiguredClient;
  /** The assertion of the `jwt_bearer` grant, asked for each time tokens are needed. */
  assertion?: AssertionSource;
  /**
   * DPoP (RFC 9449): sender-constrained tokens. Default: used when the authorization server
   * advertises ES256 in `dpop_signing_alg_values_supported`; `false`: never.
   */
  dpop?: boolean;
  /**
   * The issuer to use when the resource metadata lists several or none (or there is none); one
   * listing others but not it is refused (`AUTH_FAILED`, `details.key` `oauth.authorizationServer`).
   */
  authorizationServer?: string;
  /** A Client ID Metadata Document URL to use as the client id where it is supported. */
  clientMetadataUrl?: string;
  /** `client_name` for dynamic registration. */
  clientName?: string;
  /** The redirect URI of the interactive flow (default `http://127.0.0.1/callback`). */
  redirectUri?: string;
  /** The scopes to ask for, instead of the challenge's or the metadata's. */
  scopes?: readonly string[];
  /**
   * Called when a person must log in: open `url` (or show it), and resolve with the URL the
   * browser was sent back to, or the code. Without it, a needed login fails with `AUTH_REQUIRED`
   * (`details.url`), and `completeAuthorization` finishes it later.
   */
  onAuthorizationRequired?: (request: AuthorizationRequest) => Promise<string | URL>;
  /** How many times one scope set may be asked for after 403 `insufficient_scope` (default 2). */
  maxStepUps?: number;
  /** Refresh this long before the access token expires (default 60 s). */
  refreshSkewMs?: number;
  /** Names the server in errors. */
  serverName?: string;
  /**
   * The clock (ms since the epoch) token expiry is judged by (default `Date.now`): when tokens
   * are due for refresh, and when a device code expires.
   */
  now?: () => number;
  /** Waits between device-grant polls (default a timer; must end early when `signal` aborts). */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

export const DEFAULT_OAUTH_PROVIDER_OPTIONS = {
  grant: 'authorization_code',
  redirectUri: 'http://127.0.0.1/callback',
  maxStepUps: 2,
  refreshSkewMs: 60_000,
} as const;

/** Everything known about one authorization server and our client there. */
interface Session {
  discovery: OAuthDiscovery;
  registration: ClientRegistration;
  clientAuth: oauth.ClientAuth;
  key: TokenKey;
  /** The proof key, when tokens are DPoP-bound at this authorization server. */
  dpop: DpopProof | undefined;
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

/**
 * OAuth 2.1 for one MCP server, as the Streamable HTTP transport's `AuthProvider`: sends the
 * access token, refreshes it before it expires, and on a 401 discovers the authorization server
 * (RFC 9728, RFC 8414), finds a client (configured, metadata document, dynamic registration) and
 * gets tokens (client_credentials, jwt_bearer, or the authorization-code flow through
 * `onAuthorizationRequired`; the device grant through `startDeviceAuthorization`), DPoP-bound
 * where the authorization server offers it; every refresh goes through a `RefreshCoordinator`
 * (one refresh per token, across processes sharing the store); on a 403 `insufficient_scope` it
 * asks for the union of held and required scopes, a bounded number of times. Tokens and secrets are registered with the redactor
 * and kept in private fields: `inspect` and JSON show none of them.
 */
export class OAuthProvider implements AuthProvider {
  readonly #options: OAuthProviderOptions;
  readonly #serverUrl: URL;
  readonly #fetch: OAuthFetch;
  readonly #store: TokenStore;
  readonly #refresher: RefreshCoordinator;
  /** The token key the store's index names for this server (a fresh process's first request). */
  #indexed: Promise<TokenKey | undefined> | undefined;
  /** A refresh in `headers()` found the client refused: the next 401 deals with it. */
  #clientRefused: McpHostError | undefined;
  #session: Session | undefined;
  /** The tokens in use and their key: sent as they are while not due (no store read). */
  #tokens: OAuthTokens | undefined;
  #tokensKey: TokenKey | undefined;
  readonly #now: () => number;
  #tokenSecrets: Disposable[] = [];
  #pending: { flow: OAuthFlow; session: Session } | undefined;
  #pendingDevice: { flow: DeviceFlow; session: Session } | undefined;
  /** The recovery from a 401 under way, shared by every request refused meanwhile. */
  #recovering: Promise<boolean> | undefined;
  readonly #stepUps = new Map<string, number>();
  #privateKey: Promise<oauth.PrivateKey> | undefined;
  readonly #dpopKeys = new DpopKeyring();
  /**
   * The access token last issued bound to this provider's DPoP key: a DPoP token stored without
   * its key (`dpopKey`) that is not this one is another process's, never used here.
   */
  #boundAccessToken: string | undefined;

  constructor(options: OAuthProviderOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#serverUrl = new URL(options.serverUrl);
    this.#store = options.store ?? new FileTokenStore();
    this.#fetch = boundedFetch({
      ...options,
      fetch:
        options.fetch ??
        createEgressFetch({
          serverIsLocal: isLocalUrl(this.#serverUrl),
          ...(options.serverName === undefined ? {} : { serverName: options.serverName }),
          ...options.egress,
        }),
    });
    this.#refresher = new RefreshCoordinator({
      store: this.#store,
      refresh: this.#refreshTokens,
      refreshMarginMs: options.refreshSkewMs ?? DEFAULT_OAUTH_PROVIDER_OPTIONS.refreshSkewMs,
      now: this.#now,
      ...(options.serverName === undefined ? {} : { serverName: options.serverName }),
    });
    const missing =
      options.grant === 'jwt_bearer' && options.assertion === undefined
        ? 'the jwt_bearer grant needs an assertion source'
        : options.grant === 'client_credentials' && options.client === undefined
          ? 'the client_credentials grant needs a configured client'
          : undefined;
    if (missing !== undefined)
      throw new McpHostError('INVALID_ARGUMENT', missing, { serverName: options.serverName });
  }

  /** The scopes the current tokens were granted (or asked for). */
  get grantedScopes(): readonly string[] {
    return this.#tokens?.scope?.split(' ').filter((scope) => scope !== '') ?? [];
  }

  async headers(request?: { url: URL; method: string }): Promise<Record<string, string>> {
    const key = this.#session?.key ?? (await (this.#indexed ??= this.#indexedKey()));
    if (key === undefined) return {};
    const held = this.#tokens;
    if (
      held !== undefined &&
      this.#tokensKey !== undefined &&
      sameTokenKey(this.#tokensKey, key) &&
      !this.#refresher.isDue(held) &&
      !this.#isForeignDpop(held)
    ) {
      // The hot path: tokens in hand and not due, so no store read. Tokens another process
      // rotated meanwhile are picked up when these are due or refused (a 401).
      return this.#authorization(held, request);
    }
    let tokens: OAuthTokens | undefined;
    try {
      tokens = await this.#refresher.tokens(key);
    } catch (error) {
      if (hasCode(error, 'AUTH_CLIENT_INVALID')) {
        // Sent without a token, the request gets a 401, and `onUnauthorized` replaces the client.
        this.#clientRefused = error as McpHostError;
        this.#adopt(undefined);
        return {};
      }
      if (!hasCode(error, 'AUTH_LOGIN_REQUIRED') && !isForeignDpopRefusal(error)) throw error;
      const grant = this.#options.grant ?? DEFAULT_OAUTH_PROVIDER_OPTIONS.grant;
      if (grant === 'authorization_code' || isForeignDpopRefusal(error)) {
        this.#adopt(undefined);
        return {};
      }
      // client_credentials or jwt_bearer without a refresh token: ask again.
      const session = this.#session ?? (await this.#prepare(undefined, undefined));
      const scopes = this.#scopesOf(await this.#store.loadTokens(key));
      tokens = await this.#save(session, await this.#grantAgain(session, scopes), scopes);
    }
    if (tokens === undefined || this.#isForeignDpop(tokens)) {
      // None, or a DPoP token bound to another process's key: sent without, the request gets a
      // 401 and `onUnauthorized` gets tokens of this process's own.
      this.#adopt(undefined);
      return {};
    }
    if (tokens.accessToken !== this.#tokens?.accessToken) this.#adopt(tokens, key);
    else this.#tokensKey = key;
    return this.#authorization(tokens, request);
  }

  /** The headers that send `tokens` with `request`. */
  async #authorization(
    tokens: OAuthTokens,
    request: { url: URL; method: string } | undefined,
  ): Promise<Record<string, string>> {
    if (tokens.tokenType.toLowerCase() === 'dpop') {
      // Never sent as a bearer token: `Authorization: DPoP` with a proof for this request.
      const proof = await this.#proofOf(tokens);
      if (proof === undefined)
        throw this.#error('AUTH_FAILED', 'no DPoP key for the DPoP-bound tokens', {
          step: 'dpop-proof',
        });
      return proof.headers(tokens.accessToken, request ?? { url: this.#serverUrl, method: 'POST' });
    }
    return { authorization: `Bearer ${tokens.accessToken}` };
  }

  async onUnauthorized(challenge: AuthChallenge): Promise<boolean> {
    const parsed = await parseWwwAuthenticate(challenge.wwwAuthenticate);
    const held = this.#tokens;
    const dpop = held?.tokenType.toLowerCase() === 'dpop' ? await this.#proofOf(held) : undefined;
    if (
      parsed?.error === 'use_dpop_nonce' &&
      challenge.dpopNonce !== undefined &&
      dpop !== undefined
    ) {
      // RFC 9449 section 9: the resource server wants its nonce in the proof; the next one has it.
      await dpop.rememberNonce(challenge.url, challenge.dpopNonce);
      return true;
    }
    if (challenge.status === 403 && parsed?.error !== 'insufficient_scope') return false;
    if (challenge.status === 403) return this.#recover(challenge, parsed);
    // Several requests refused at once share one recovery (one refresh, or one login), which
    // runs under the first one's signal; the others then retry with what it obtained.
    this.#recovering ??= this.#recover(challenge, parsed).finally(() => {
      this.#recovering = undefined;
    });
    return this.#recovering;
  }

  async #recover(
    challenge: AuthChallenge,
    parsed: Awaited<ReturnType<typeof parseWwwAuthenticate>>,
  ): Promise<boolean> {
    let session = await this.#prepare(parsed, challenge.signal);
    const required = this.#scopesFor(session, this.#options.scopes ?? parsed?.scopes);
    let scopes: string[];
    if (challenge.status === 403) {
      scopes = union(this.grantedScopes, required);
      const key = `${session.key.resource} ${[...scopes].sort().join(' ')}`;
      const count = (this.#stepUps.get(key) ?? 0) + 1;
      if (count > (this.#options.maxStepUps ?? DEFAULT_OAUTH_PROVIDER_OPTIONS.maxStepUps)) {
        throw this.#error(
          'AUTH_REQUIRED',
          `the server still needs scopes ${scopes.join(' ')} after ${count - 1} step-up attempts`,
          { scopes, status: 403 },
        );
      }
      this.#stepUps.set(key, count);
    } else {
      const refused = this.#clientRefused;
      this.#clientRefused = undefined;
      if (refused !== undefined) {
        session = await this.#replaceClient(session, refused, parsed, challenge.signal);
      } else {
        const sent = this.#tokens?.accessToken;
        try {
          // Stored tokens other than the ones refused are used as they are; else one refresh.
          const tokens = await this.#refresher.refresh(session.key, {
            rejectedAccessToken: sent ?? '',
            signal: challenge.signal,
          });
          // A DPoP token in the store bound to another process's key is unusable here: log in.
          if (tokens.accessToken !== sent && !this.#isForeignDpop(tokens)) {
            this.#adopt(tokens, session.key);
            return true;
          }
        } catch (error) {
          if (hasCode(error, 'AUTH_CLIENT_INVALID'))
            session = await this.#replaceClient(
              session,
              error as McpHostError,
              parsed,
              challenge.signal,
            );
          else if (!hasCode(error, 'AUTH_LOGIN_REQUIRED') && !isForeignDpopRefusal(error))
            throw error;
        }
        this.#adopt(undefined);
      }
      scopes = [...required];
    }
    await this.#obtain(session, scopes, challenge.signal, challenge.status);
    return true;
  }

  /**
   * Starts a login for this server (the first step of the two-step API): discovery, the client,
   * then the authorization URL to open. `completeAuthorization` finishes it.
   */
  async startAuthorization(
    options: { signal?: AbortSignal; scopes?: readonly string[] } = {},
  ): Promise<AuthorizationStart> {
    const session = await this.#prepare(undefined, options.signal);
    const flow = this.#flow(session, this.#scopesFor(session, options.scopes));
    this.#pending = { flow, session };
    return flow.start();
  }

  /** Finishes the login `startAuthorization` (or a refused request) started; saves the tokens. */
  async completeAuthorization(redirectUrlOrCode: string | URL): Promise<void> {
    const pending = this.#pending;
    if (pending === undefined) {
      throw this.#error('AUTH_FAILED', 'no login is waiting to be completed', {
        step: 'authorization-response',
      });
    }
    this.#pending = undefined;
    await this.#save(
      pending.session,
      await pending.flow.complete(redirectUrlOrCode),
      pending.flow.scopes,
    );
  }

  /**
   * Starts a device login (RFC 8628) when the authorization server offers it
   * (`device_authorization_endpoint`): returns the code to show the user and where they enter it.
   * `waitForDeviceAuthorization` then polls until they approve.
   */
  async startDeviceAuthorization(
    options: { signal?: AbortSignal; scopes?: readonly string[] } = {},
  ): Promise<DeviceAuthorization> {
    return named(this.#options.serverName, async () => {
      const session = await this.#prepare(undefined, options.signal);
      const scopes = this.#scopesFor(session, options.scopes);
      const flow = new DeviceFlow({
        authorizationServer: session.discovery.authorizationServer,
        clientId: session.registration.clientId,
        clientAuth: session.clientAuth,
        resource: session.discovery.resource,
        scopes,
        fetch: this.#fetch,
        ...(session.dpop === undefined ? {} : { dpop: session.dpop }),
        now: this.#now,
        ...(this.#options.sleep === undefined ? {} : { sleep: this.#options.sleep }),
      });
      const authorization = await flow.start(options.signal);
      this.#pendingDevice = { flow, session };
      return authorization;
    });
  }

  /**
   * Polls for the device login `startDeviceAuthorization` started (honouring `interval` and
   * `slow_down`) until the user approves (the tokens are saved), denies or lets the code expire
   * (`AUTH_FAILED`), or `signal` aborts (`ABORTED`).
   */
  async waitForDeviceAuthorization(options: { signal?: AbortSignal } = {}): Promise<void> {
    const pending = this.#pendingDevice;
    if (pending === undefined) {
      throw this.#error('AUTH_FAILED', 'no device login is waiting to be completed', {
        step: 'device-poll',
      });
    }
    this.#pendingDevice = undefined;
    const tokens = await named(this.#options.serverName, () => pending.flow.poll(options.signal));
    await this.#save(pending.session, tokens, pending.flow.scopes);
  }

  /** Forgets the tokens (here and in the store); the client registration stays. */
  async logout(): Promise<void> {
    const key = this.#session?.key ?? (await (this.#indexed ??= this.#indexedKey()));
    this.#adopt(undefined);
    this.#dpopKeys.retire();
    if (key !== undefined) await this.#store.clearTokens(key);
  }

  /** The token key the store's index keeps for this server, if the store has an index. */
  async #indexedKey(): Promise<TokenKey | undefined> {
    return this.#store.findTokenKey?.(this.#serverUrl.href);
  }

  /**
   * The authorization server refused the client (`invalid_client`). A dynamically registered one
   * is forgotten with its tokens and registered anew (once: the caller then logs in with it); a
   * configured or metadata-document client is the user's, and the refusal is thrown.
   */
  async #replaceClient(
    session: Session,
    refused: McpHostError,
    challenge: BearerChallenge | undefined,
    signal: AbortSignal,
  ): Promise<Session> {
    if (session.registration.source !== 'dynamic') throw refused;
    this.#adopt(undefined);
    this.#dpopKeys.retire();
    await this.#store.clearTokens(session.key);
    await this.#store.clearRegistration(session.registration.issuer);
    this.#session = undefined;
    return this.#prepare(challenge, signal);
  }

  /**
   * A DPoP-bound token stored without its key (`dpopKey`) that this provider's key did not get
   * (another process's): unusable here.
   */
  #isForeignDpop(tokens: OAuthTokens): boolean {
    return (
      tokens.tokenType.toLowerCase() === 'dpop' &&
      tokens.dpopKey === undefined &&
      (this.#session?.dpop === undefined || tokens.accessToken !== this.#boundAccessToken)
    );
  }

  /**
   * The proof key DPoP-bound `tokens` are bound to: the one stored with them (made into a proof
   * once, then reused), else this provider's when it got them; undefined when neither.
   */
  async #proofOf(tokens: OAuthTokens): Promise<DpopProof | undefined> {
    const stored = tokens.dpopKey;
    if (stored === undefined)
      return tokens.accessToken === this.#boundAccessToken ? this.#session?.dpop : undefined;
    return named(this.#options.serverName, () =>
      this.#dpopKeys.fromKey(stored, this.#session?.dpop),
    );
  }

  /** The scopes to ask for: `given`, else the configured ones, else the PRM's, else none. */
  #scopesFor(session: Session, given: readonly string[] | undefined): readonly string[] {
    return (
      given ?? this.#options.scopes ?? session.discovery.resourceMetadata?.scopes_supported ?? []
    );
  }

  #scopesOf(tokens: OAuthTokens | undefined): string[] {
    return tokens?.scope?.split(' ').filter((s) => s !== '') ?? [...(this.#options.scopes ?? [])];
  }

  #error(
    code: 'AUTH_REQUIRED' | 'AUTH_FAILED',
    message: string,
    details: Record<string, unknown>,
  ): McpHostError {
    return new McpHostError(code, message, {
      details,
      ...(this.#options.serverName === undefined ? {} : { serverName: this.#options.serverName }),
    });
  }

  /** Discovery and the client; redone on each challenge (the server may have moved). */
  async #prepare(
    challenge: BearerChallenge | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Session> {
    const fetchFn: OAuthFetch =
      signal === undefined ? this.#fetch : (url, init) => this.#fetch(url, { ...init, signal });
    const discovery = await named(this.#options.serverName, () =>
      discoverOAuth(this.#serverUrl, challenge?.resourceMetadata, fetchFn, {
        authorizationServer: this.#options.authorizationServer,
      }),
    );
    const as = discovery.authorizationServer;
    const previous = this.#session;
    if (previous !== undefined && previous.discovery.authorizationServer.issuer !== as.issuer) {
      // Moved to another authorization server: tokens and client of the old one are not used there.
      this.#adopt(undefined);
    }
    const grant = this.#options.grant ?? DEFAULT_OAUTH_PROVIDER_OPTIONS.grant;
    const registration =
      previous !== undefined && previous.registration.issuer === as.issuer
        ? previous.registration
        : await resolveClient(
            as,
            {
              ...(this.#options.client === undefined ? {} : { client: this.#options.client }),
              ...(this.#options.clientMetadataUrl === undefined
                ? {}
                : { clientMetadataUrl: this.#options.clientMetadataUrl }),
              ...(this.#options.clientName === undefined
                ? {}
                : { clientName: this.#options.clientName }),
              redirectUris: [this.#redirectUri()],
              grantTypes:
                grant === 'client_credentials'
                  ? ['client_credentials']
                  : grant === 'jwt_bearer'
                    ? [JWT_BEARER_GRANT_TYPE]
                    : ['authorization_code', 'refresh_token'],
            },
            this.#store,
            fetchFn,
          );
    const privateKeyRef =
      registration.source === 'configured' ? this.#options.client?.privateKey : undefined;
    if (privateKeyRef !== undefined) this.#privateKey ??= loadPrivateKey(privateKeyRef);
    const method = chooseAuthMethod(registration, as, privateKeyRef !== undefined);
    const clientAuth = clientAuthFor(
      method,
      registration.clientSecret,
      privateKeyRef === undefined ? undefined : await this.#privateKey,
    );
    const key: TokenKey = {
      issuer: as.issuer,
      clientId: registration.clientId,
      resource: discovery.resource,
    };
    let dpop: DpopProof | undefined;
    if (this.#options.dpop !== false && supportsDpop(as)) {
      // The key stored with the tokens (another process's, maybe), else this provider's own.
      const stored = (await this.#store.loadTokens(key))?.dpopKey;
      dpop =
        stored === undefined
          ? await this.#dpopKeys.own()
          : await named(this.#options.serverName, () => this.#dpopKeys.fromKey(stored));
    }
    const session: Session = { discovery, registration, clientAuth, key, dpop };
    this.#session = session;
    return session;
  }

  #redirectUri(): string {
    return this.#options.redirectUri ?? DEFAULT_OAUTH_PROVIDER_OPTIONS.redirectUri;
  }

  #flow(session: Session, scopes: readonly string[]): OAuthFlow {
    const as = session.discovery.authorizationServer;
    const withOffline =
      as.scopes_supported?.includes('offline_access') === true && !scopes.includes('offline_access')
        ? [...scopes, 'offline_access']
        : scopes;
    return new OAuthFlow({
      authorizationServer: as,
      clientId: session.registration.clientId,
      clientAuth: session.clientAuth,
      redirectUri: this.#redirectUri(),
      resource: session.discovery.resource,
      scopes: withOffline,
      fetch: this.#fetch,
      ...(session.dpop === undefined ? {} : { dpop: session.dpop }),
    });
  }

  /** New tokens by the configured grant; `status`: the refusal's (401, or 403 for a step-up). */
  async #obtain(session: Session, scopes: readonly string[], signal: AbortSignal, status = 401) {
    if ((this.#options.grant ?? DEFAULT_OAUTH_PROVIDER_OPTIONS.grant) !== 'authorization_code') {
      await this.#save(session, await this.#grantAgain(session, scopes, signal), scopes);
      return;
    }
    const flow = this.#flow(session, scopes);
    const start = await flow.start();
    const ask = this.#options.onAuthorizationRequired;
    if (ask === undefined) {
      this.#pending = { flow, session };
      throw this.#error(
        'AUTH_REQUIRED',
        `a login is needed: open ${start.url.origin}${start.url.pathname} (details.url)`,
        {
          url: start.url.href,
          scopes: flow.scopes,
          expiresAt: start.expiresAt,
          status,
        },
      );
    }
    const answer = await ask({ ...start, serverUrl: this.#serverUrl, scopes: flow.scopes, signal });
    await this.#save(session, await flow.complete(answer), flow.scopes);
  }

  /** Tokens by a grant that needs no person (client_credentials, jwt_bearer): asked anew. */
  #grantAgain(
    session: Session,
    scopes: readonly string[],
    signal?: AbortSignal,
  ): Promise<TokenResponse> {
    return this.#options.grant === 'jwt_bearer'
      ? this.#jwtBearer(session, scopes, signal)
      : clientCredentialsGrant(this.#grantContext(session), {
          resource: session.discovery.resource,
          scopes,
        });
  }

  #grantContext(session: Session, signal?: AbortSignal): GrantContext {
    return {
      authorizationServer: session.discovery.authorizationServer,
      clientId: session.registration.clientId,
      clientAuth: session.clientAuth,
      fetch:
        signal === undefined ? this.#fetch : (url, init) => this.#fetch(url, { ...init, signal }),
      dpop: session.dpop,
    };
  }

  /** Tokens by the JWT-bearer grant, with a fresh assertion from the configured source. */
  async #jwtBearer(
    session: Session,
    scopes: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<TokenResponse> {
    const as = session.discovery.authorizationServer;
    const source = this.#options.assertion as AssertionSource;
    return named(this.#options.serverName, async () => {
      let assertion: string;
      try {
        assertion = await source({
          issuer: as.issuer,
          resource: session.discovery.resource,
          scopes,
          signal,
        });
      } catch (error) {
        throw authError(error, 'assertion', 'the JWT-bearer assertion could not be had');
      }
      addSecret(assertion);
      return jwtBearerGrant(this.#grantContext(session, signal), {
        assertion,
        resource: session.discovery.resource,
        scopes,
      });
    });
  }

  /**
   * The one refresh request (the coordinator's `refresh`): oauth4webapi's refresh-token grant at
   * the session's token endpoint, with a DPoP proof (and one retry for `use_dpop_nonce`) where
   * DPoP is used. Its errors go to the coordinator as they are, to be classified. DPoP tokens of
   * another process's key are not refreshed here (their refresh token may be bound to that key).
   */
  readonly #refreshTokens: RefreshTokensFunction = async (tokens, { key, signal }) => {
    const session =
      this.#session !== undefined && sameTokenKey(this.#session.key, key)
        ? this.#session
        : await this.#prepare(undefined, signal);
    if (!sameTokenKey(session.key, key))
      throw this.#error('AUTH_FAILED', 'the server moved to another authorization server', {
        step: 'refresh',
      });
    if (this.#isForeignDpop(tokens))
      throw this.#error(
        'AUTH_FAILED',
        "the stored DPoP tokens are bound to another process's key",
        {
          step: 'refresh',
          reason: FOREIGN_DPOP_REASON,
        },
      );
    const as = session.discovery.authorizationServer;
    const client: oauth.Client = { client_id: session.registration.clientId };
    // DPoP-bound tokens are refreshed with proofs of the key they are bound to.
    const dpop =
      tokens.tokenType.toLowerCase() === 'dpop' ? await this.#proofOf(tokens) : session.dpop;
    const refreshed = await withDpopNonceRetry(dpop, async () => {
      const response = await oauth.refreshTokenGrantRequest(
        as,
        client,
        session.clientAuth,
        tokens.refreshToken,
        {
          additionalParameters: { resource: session.discovery.resource },
          ...requestOptions(as.token_endpoint as string, this.#fetch),
          signal,
          ...(dpop === undefined ? {} : { DPoP: dpop.handle }),
        },
      );
      return oauth.processRefreshTokenResponse(as, client, response);
    });
    return this.#toTokens(session, refreshed, this.#scopesOf(tokens), tokens.refreshToken, dpop);
  };

  async #save(
    session: Session,
    response: TokenResponse,
    requested: readonly string[],
  ): Promise<OAuthTokens> {
    const tokens = this.#toTokens(session, response, requested);
    this.#adopt(tokens, session.key);
    await this.#store.saveTokens(session.key, tokens);
    await this.#store.indexTokenKey?.(this.#serverUrl.href, session.key);
    return tokens;
  }

  #toTokens(
    session: Session,
    response: TokenResponse,
    requested: readonly string[],
    previousRefreshToken?: string,
    proof: DpopProof | undefined = session.dpop,
  ): OAuthTokens {
    const dpop = response.token_type === 'dpop' && proof !== undefined;
    if (response.token_type !== 'bearer' && !dpop) {
      throw this.#error(
        'AUTH_FAILED',
        `the authorization server issued a '${response.token_type}' token; only Bearer tokens${proof === undefined ? '' : ' and DPoP tokens'} are supported`,
        {
          step: 'token-request',
        },
      );
    }
    if (dpop) this.#boundAccessToken = response.access_token;
    const refreshToken = response.refresh_token ?? previousRefreshToken;
    const scope = response.scope ?? (requested.length > 0 ? requested.join(' ') : undefined);
    const tokens: OAuthTokens = {
      accessToken: response.access_token,
      tokenType: dpop ? 'DPoP' : 'Bearer',
      ...(refreshToken === undefined ? {} : { refreshToken }),
      ...(response.expires_in === undefined
        ? {}
        : { expiresAt: this.#now() + response.expires_in * 1000 }),
      ...(scope === undefined ? {} : { scope }),
      issuedAt: this.#now(),
      // Stored with the tokens: every process sharing the store can use and refresh them.
      ...(dpop ? { dpopKey: proof.key() } : {}),
    };
    return tokens;
  }

  #adopt(tokens: OAuthTokens | undefined, key?: TokenKey): void {
    const old = this.#tokenSecrets;
    this.#tokenSecrets = [];
    if (tokens !== undefined) {
      this.#tokenSecrets.push(addSecret(tokens.accessToken));
      if (tokens.refreshToken !== undefined)
        this.#tokenSecrets.push(addSecret(tokens.refreshToken));
      if (tokens.dpopKey !== undefined) this.#tokenSecrets.push(addSecret(tokens.dpopKey.d));
    }
    for (const secret of old) secret.dispose();
    this.#tokens = tokens;
    this.#tokensKey = tokens === undefined ? undefined : key;
  }
}

function hasCode(error: unknown, code: string): boolean {
  return error instanceof McpHostError && error.code === code;
}
