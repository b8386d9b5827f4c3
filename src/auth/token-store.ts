/**
 * Where OAuth credentials live: the tokens of each (authorization server, client, resource) and
 * the client registration of each authorization server. A small interface so that a user can
 * plug in an OS keychain; mcp-host's own implementation keeps them in the state store (a file
 * created 0600). Nothing here is ever logged or printed: every token and secret read or written
 * is registered with the redactor by the implementation.
 */
import type { Lease, LeaseOptions } from '../state/lease.js';

/** Tokens issued to one client for one resource by one authorization server. */
export interface OAuthTokens {
  accessToken: string;
  /** `Bearer` or `DPoP` (as the token response said). */
  tokenType: string;
  refreshToken?: string;
  /** When the access token expires, in milliseconds since the epoch (from `expires_in`). */
  expiresAt?: number;
  /** The scopes granted, space-separated, as the token response said (or as requested). */
  scope?: string;
  /**
   * When the tokens were received (ms since the epoch). With `expiresAt` it gives the lifetime,
   * so that a refresh can start a share of it before expiry; a store fills it in when missing.
   */
  issuedAt?: number;
  /**
   * DPoP-bound tokens (RFC 9449): the key pair they are bound to, private part included, so that
   * every process sharing the store can send and refresh them. A secret, like the tokens.
   */
  dpopKey?: DpopKey;
}

/** A DPoP proof key pair as a JWK (ES256: EC P-256), private part (`d`) included. */
export interface DpopKey {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  /** The private key: a secret. */
  d: string;
}

/**
 * Which tokens: the authorization server's `issuer`, the `client_id` they were issued to, and the
 * RFC 8707 `resource` (the MCP server's canonical URL) they are for.
 */
export interface TokenKey {
  issuer: string;
  clientId: string;
  resource: string;
}

/** A client registered with one authorization server (configured, a metadata URL, or dynamic). */
export interface ClientRegistration {
  /** The authorization server's `issuer` this registration belongs to. */
  issuer: string;
  clientId: string;
  clientSecret?: string;
  /** When the client secret expires (ms since the epoch; RFC 7591 `client_secret_expires_at`). */
  clientSecretExpiresAt?: number;
  /** How this client was obtained: only a `dynamic` one is ever deleted or replaced by mcp-host. */
  source: 'configured' | 'metadata-document' | 'dynamic';
  /** The token endpoint authentication method registered (`none`, `client_secret_basic`, ...). */
  tokenEndpointAuthMethod?: string;
  redirectUris?: string[];
}

export interface TokenStore {
  /** The tokens under `key`, or undefined. */
  loadTokens(key: TokenKey): Promise<OAuthTokens | undefined>;
  saveTokens(key: TokenKey, tokens: OAuthTokens): Promise<void>;
  /** Forgets the tokens (the registration stays). */
  clearTokens(key: TokenKey): Promise<void>;
  /** The registration kept for an authorization server, or undefined. */
  loadRegistration(issuer: string): Promise<ClientRegistration | undefined>;
  saveRegistration(registration: ClientRegistration): Promise<void>;
  clearRegistration(issuer: string): Promise<void>;
  /**
   * Optional: an exclusive lease on the refresh of these tokens, shared with every process using
   * the same store (see `StateStore.lease`). With it, the refresh coordinator refreshes once
   * across processes; without it, once per process.
   */
  lease?(key: TokenKey, options: LeaseOptions): Promise<Lease>;
  /**
   * Optional, with `indexTokenKey`: the token key last saved for an MCP server (its URL, as
   * given), so that a fresh process sends stored tokens on its first request instead of first
   * being refused and rediscovering the authorization server. Undefined when unknown.
   */
  findTokenKey?(serverUrl: string): Promise<TokenKey | undefined>;
  /** Optional: remembers which token key the tokens of an MCP server are saved under. */
  indexTokenKey?(serverUrl: string, key: TokenKey): Promise<void>;
}

/** The members of an EC P-256 private JWK, checked; undefined when `value` is not one. */
export function toDpopKey(value: unknown): DpopKey | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const jwk = value as Record<string, unknown>;
  const text = (v: unknown): v is string => typeof v === 'string' && v !== '';
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !text(jwk.x) || !text(jwk.y) || !text(jwk.d))
    return undefined;
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, d: jwk.d };
}

/** Whether two token keys name the same tokens. */
export function sameTokenKey(a: TokenKey, b: TokenKey): boolean {
  return a.issuer === b.issuer && a.clientId === b.clientId && a.resource === b.resource;
}
