/**
 * The `TokenStore` mcp-host uses by default: OAuth tokens and client registrations kept in a
 * state store, by default the state file (`FileStateStore`: created 0600 in a 0700 directory,
 * shared safely between processes). Tokens live in the namespace `oauth-tokens` under the key
 * `["<issuer>","<client id>","<resource>"]`, registrations in `oauth-clients` under the issuer,
 * the token key of each MCP server in `oauth-servers` under the server's URL, and the refresh
 * lease of each token key in the state store's leases (`oauth-refresh`). The DPoP key pair that
 * DPoP-bound tokens are bound to (private part included) is kept in their record (`dpopKey`), so
 * that it is cleared with them.
 *
 * Every token, DPoP private key and client secret this store reads or writes is registered with the process-wide
 * redactor, so it is masked in every error and log line; the tokens of each key stay registered
 * after they are replaced (the last two sets), since a late log line may still quote them. A
 * record that is not in the expected shape (edited by hand, written by something else) is treated
 * as absent and reported with a warning that names the key, never a value.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import { addSecret } from '../errors/redact.js';
import type { Disposable } from '../internal/disposable.js';
import { debugLogger } from '../internal/debug-logger.js';
import type { Logger } from '../internal/logger.js';
import { FileStateStore } from '../state/file-state-store.js';
import type { Lease, LeaseOptions } from '../state/lease.js';
import type { StateStore } from '../state/state-store.js';
import {
  toDpopKey,
  type ClientRegistration,
  type OAuthTokens,
  type TokenKey,
  type TokenStore,
} from './token-store.js';

export const TOKENS_NAMESPACE = 'oauth-tokens';
export const REGISTRATIONS_NAMESPACE = 'oauth-clients';
const REFRESH_LEASE_NAMESPACE = 'oauth-refresh';
const SERVER_INDEX_NAMESPACE = 'oauth-servers';

export interface FileTokenStoreOptions {
  /**
   * The state store to keep the credentials in; it is not closed by this store. Default: a
   * `FileStateStore` on `path`, owned (and closed) by this store.
   */
  stateStore?: StateStore;
  /** The state file when no `stateStore` is given. Default: the default state file. */
  path?: string;
  /** Receives the warnings about malformed records. Default: `NODE_DEBUG=mcp-host`. */
  logger?: Logger;
}

/** How many sets of secrets per key stay registered with the redactor. */
const REMEMBERED_SECRET_SETS = 2;

const registrationSources: ReadonlySet<string> = new Set([
  'configured',
  'metadata-document',
  'dynamic',
]);

export class FileTokenStore implements TokenStore, AsyncDisposable {
  readonly #state: StateStore;
  readonly #owned: boolean;
  readonly #logger: Logger;
  /** Redactor registrations, per record, newest last. */
  readonly #secrets = new Map<string, Disposable[][]>();

  /**
   * The refresh lease of a token key, when the state store has leases (the file and memory
   * stores do): one holder at a time across every process sharing the store.
   */
  readonly lease?: (key: TokenKey, options: LeaseOptions) => Promise<Lease>;

  constructor(options: FileTokenStoreOptions = {}) {
    this.#owned = options.stateStore === undefined;
    this.#state = options.stateStore ?? new FileStateStore({ path: options.path });
    this.#logger = options.logger ?? debugLogger;
    const state = this.#state;
    if (state.lease !== undefined)
      this.lease = (key, leaseOptions) =>
        state.lease!(REFRESH_LEASE_NAMESPACE, tokenKeyString(key), leaseOptions);
  }

  async loadTokens(key: TokenKey): Promise<OAuthTokens | undefined> {
    const name = tokenKeyString(key);
    const raw = await this.#state.get(TOKENS_NAMESPACE, name);
    if (raw === undefined) return undefined;
    const tokens = toTokens(raw);
    if (tokens === undefined) {
      this.#logger.warn('oauth tokens record is malformed: ignored', {
        issuer: key.issuer,
        clientId: key.clientId,
        resource: key.resource,
      });
      return undefined;
    }
    this.#remember(`t${name}`, [tokens.accessToken, tokens.refreshToken, tokens.dpopKey?.d]);
    return tokens;
  }

  async saveTokens(key: TokenKey, tokens: OAuthTokens): Promise<void> {
    const name = tokenKeyString(key);
    const record = toTokens({ issuedAt: Date.now(), ...tokens });
    if (record === undefined)
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `FileTokenStore: tokens for ${key.issuer} need a non-empty accessToken and tokenType`,
      );
    this.#remember(`t${name}`, [record.accessToken, record.refreshToken, record.dpopKey?.d]);
    await this.#state.set(TOKENS_NAMESPACE, name, record);
  }

  async clearTokens(key: TokenKey): Promise<void> {
    await this.#state.delete(TOKENS_NAMESPACE, tokenKeyString(key));
  }

  async loadRegistration(issuer: string): Promise<ClientRegistration | undefined> {
    checkPart('issuer', issuer);
    const raw = await this.#state.get(REGISTRATIONS_NAMESPACE, issuer);
    if (raw === undefined) return undefined;
    const registration = toRegistration(raw);
    if (registration === undefined || registration.issuer !== issuer) {
      this.#logger.warn('oauth client registration record is malformed: ignored', { issuer });
      return undefined;
    }
    this.#remember(`c${issuer}`, [registration.clientSecret]);
    return registration;
  }

  async saveRegistration(registration: ClientRegistration): Promise<void> {
    const record = toRegistration(registration);
    if (record === undefined)
      throw new McpHostError(
        'INVALID_ARGUMENT',
        'FileTokenStore: a registration needs an issuer, a clientId and a known source',
      );
    this.#remember(`c${record.issuer}`, [record.clientSecret]);
    await this.#state.set(REGISTRATIONS_NAMESPACE, record.issuer, record);
  }

  async clearRegistration(issuer: string): Promise<void> {
    checkPart('issuer', issuer);
    await this.#state.delete(REGISTRATIONS_NAMESPACE, issuer);
  }

  async findTokenKey(serverUrl: string): Promise<TokenKey | undefined> {
    checkPart('serverUrl', serverUrl);
    const raw = await this.#state.get(SERVER_INDEX_NAMESPACE, serverUrl);
    if (raw === undefined) return undefined;
    if (
      !isRecord(raw) ||
      !isNonEmptyString(raw.issuer) ||
      !isNonEmptyString(raw.clientId) ||
      !isNonEmptyString(raw.resource)
    ) {
      this.#logger.warn('oauth server index record is malformed: ignored', { serverUrl });
      return undefined;
    }
    return { issuer: raw.issuer, clientId: raw.clientId, resource: raw.resource };
  }

  async indexTokenKey(serverUrl: string, key: TokenKey): Promise<void> {
    checkPart('serverUrl', serverUrl);
    tokenKeyString(key);
    const record = { issuer: key.issuer, clientId: key.clientId, resource: key.resource };
    await this.#state.update(SERVER_INDEX_NAMESPACE, serverUrl, (old) =>
      isRecord(old) &&
      old.issuer === record.issuer &&
      old.clientId === record.clientId &&
      old.resource === record.resource
        ? old
        : record,
    );
  }

  /** Closes the state store if this store made it. Idempotent. */
  async close(): Promise<void> {
    if (this.#owned) await this.#state.close?.();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Registers secrets with the redactor, keeping the last few sets of each record registered. */
  #remember(record: string, values: Array<string | undefined>): void {
    const sets = this.#secrets.get(record) ?? [];
    sets.push(values.filter((value) => value !== undefined).map((value) => addSecret(value)));
    while (sets.length > REMEMBERED_SECRET_SETS)
      for (const secret of sets.shift()!) secret.dispose();
    this.#secrets.set(record, sets);
  }
}

function checkPart(name: string, value: unknown): void {
  if (typeof value !== 'string' || value === '')
    throw new McpHostError('INVALID_ARGUMENT', `token store: ${name} must be a non-empty string`);
}

/** The state key of a token key: `["<issuer>","<client id>","<resource>"]`. */
export function tokenKeyString(key: TokenKey): string {
  checkPart('issuer', key?.issuer);
  checkPart('clientId', key.clientId);
  checkPart('resource', key.resource);
  return JSON.stringify([key.issuer, key.clientId, key.resource]);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isNonEmptyString = (value: unknown): value is string =>
  typeof value === 'string' && value !== '';
const isTime = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/** The known members of a tokens record, checked; undefined when it is not one. */
function toTokens(value: unknown): OAuthTokens | undefined {
  if (
    !isRecord(value) ||
    !isNonEmptyString(value.accessToken) ||
    !isNonEmptyString(value.tokenType)
  )
    return undefined;
  const tokens: OAuthTokens = { accessToken: value.accessToken, tokenType: value.tokenType };
  if (isNonEmptyString(value.refreshToken)) tokens.refreshToken = value.refreshToken;
  if (isTime(value.expiresAt)) tokens.expiresAt = value.expiresAt;
  if (typeof value.scope === 'string') tokens.scope = value.scope;
  if (isTime(value.issuedAt)) tokens.issuedAt = value.issuedAt;
  const dpopKey = toDpopKey(value.dpopKey);
  if (dpopKey !== undefined) tokens.dpopKey = dpopKey;
  return tokens;
}

/** The known members of a registration record, checked; undefined when it is not one. */
function toRegistration(value: unknown): ClientRegistration | undefined {
  if (
    !isRecord(value) ||
    !isNonEmptyString(value.issuer) ||
    !isNonEmptyString(value.clientId) ||
    typeof value.source !== 'string' ||
    !registrationSources.has(value.source)
  )
    return undefined;
  const registration: ClientRegistration = {
    issuer: value.issuer,
    clientId: value.clientId,
    source: value.source as ClientRegistration['source'],
  };
  if (isNonEmptyString(value.clientSecret)) registration.clientSecret = value.clientSecret;
  if (isTime(value.clientSecretExpiresAt))
    registration.clientSecretExpiresAt = value.clientSecretExpiresAt;
  if (isNonEmptyString(value.tokenEndpointAuthMethod))
    registration.tokenEndpointAuthMethod = value.tokenEndpointAuthMethod;
  if (
    Array.isArray(value.redirectUris) &&
    value.redirectUris.every((uri) => typeof uri === 'string')
  )
    registration.redirectUris = [...value.redirectUris];
  return registration;
}
