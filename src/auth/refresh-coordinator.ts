/**
 * Single-flight OAuth token refresh: however many callers in however many processes find the same
 * tokens due, the refresh token is spent once.
 *
 * - **In one process**, concurrent refreshes of one token key share one flight (per token store,
 *   so two coordinators on one store share too).
 * - **Across processes**, a flight holds the token store's lease on the key (`TokenStore.lease`,
 *   from `StateStore.lease`) around one refresh request, and reads the tokens again under it: when
 *   another holder replaced them meanwhile (another access or refresh token) and they are not due,
 *   it takes those instead of refreshing, so a rotating refresh token is never spent twice. The
 *   request is bounded by `requestTimeoutMs` and aborted if the lease runs out (`leaseTtlMs`), so
 *   nothing is saved under a lease that someone else may hold.
 * - **When**: tokens are due `min(refreshMarginMs, 10% of their lifetime)` before `expiresAt`
 *   (the lifetime from `issuedAt`; without it, `refreshMarginMs`); tokens without `expiresAt` are
 *   refreshed only when asked (`refresh()`, after a 401).
 * - **Failures** (`classifyRefreshFailure`): network, timeout, 5xx and 429 keep the tokens and are
 *   retried with capped backoff (honouring `Retry-After`) up to `maxAttempts`, then
 *   `AUTH_REFRESH_FAILED`; but while the access token has not expired yet, `tokens()` returns it
 *   instead and waits a while before trying again. `invalid_grant` clears the tokens (only if they
 *   are still the ones refused; the registration stays) and fails with `AUTH_LOGIN_REQUIRED`.
 *   `invalid_client` fails with `AUTH_CLIENT_INVALID`, tokens kept. Anything else: tokens kept,
 *   `AUTH_REFRESH_FAILED` (reason `rejected`), no retry.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import { preview } from '../errors/redact.js';
import { backoffDelay } from '../internal/backoff.js';
import { debugLogger } from '../internal/debug-logger.js';
import type { Logger } from '../internal/logger.js';
import { abortableDelay, deadlineSignal, linkSignals, raceSignal } from '../internal/signals.js';
import { classifyRefreshFailure, type RefreshFailure } from './refresh-failure.js';
import type { OAuthTokens, TokenKey, TokenStore } from './token-store.js';

/** Tokens that can be refreshed. */
export type RefreshableTokens = OAuthTokens & { refreshToken: string };

/**
 * Performs one refresh request (the token endpoint, client authentication, DPoP: the caller's
 * business) and returns the new tokens; throws what the request threw. Must honour `signal`.
 * A response without a new refresh token keeps the old one (RFC 6749 §6).
 */
export type RefreshTokensFunction = (
  tokens: RefreshableTokens,
  context: { key: TokenKey; signal: AbortSignal },
) => Promise<OAuthTokens>;

export interface RefreshCoordinatorOptions {
  store: TokenStore;
  refresh: RefreshTokensFunction;
  /** For errors and logs: the server the tokens are for. */
  serverName?: string;
  /** Refresh this long before expiry at most (default 60 s; 10% of the lifetime when shorter). */
  refreshMarginMs?: number;
  /** The lease's lifetime: how long a crashed holder blocks the others (default 30 s). */
  leaseTtlMs?: number;
  /** The deadline of one refresh request (default 10 s; at most `leaseTtlMs`). */
  requestTimeoutMs?: number;
  /** Tries per refresh for transient failures (default 3). */
  maxAttempts?: number;
  /** First backoff step between tries (default 500 ms), doubling up to `retryMaxDelayMs`. */
  retryBaseDelayMs?: number;
  /** The largest pause between tries, `Retry-After` included (default 5 s). */
  retryMaxDelayMs?: number;
  logger?: Logger;
  /** The clock (ms since the epoch) that decides when tokens are due (default `Date.now`). */
  now?: () => number;
}

export const refreshCoordinatorDefaults = {
  refreshMarginMs: 60_000,
  leaseTtlMs: 30_000,
  requestTimeoutMs: 10_000,
  maxAttempts: 3,
  retryBaseDelayMs: 500,
  retryMaxDelayMs: 5_000,
  /** How long one caller waits for a refresh, by default. */
  timeoutMs: 60_000,
} as const;

/** The share of a token's lifetime left when it is due for refresh. */
const MARGIN_RATIO = 0.1;

export interface RefreshCallOptions {
  signal?: AbortSignal;
  /** How long this caller waits (default 60 s): then `REQUEST_TIMEOUT`; the flight goes on. */
  timeoutMs?: number;
}

/** Flights under way, per token store and key: shared by every coordinator in the process. */
const flightsByStore = new WeakMap<TokenStore, Map<string, Promise<OAuthTokens>>>();

export class RefreshCoordinator {
  readonly #store: TokenStore;
  readonly #refresh: RefreshTokensFunction;
  readonly #serverName: string | undefined;
  readonly #marginMs: number;
  readonly #leaseTtlMs: number;
  readonly #requestTimeoutMs: number;
  readonly #maxAttempts: number;
  readonly #retryBaseDelayMs: number;
  readonly #retryMaxDelayMs: number;
  readonly #logger: Logger;
  readonly #now: () => number;
  /** After a failed refresh of still-valid tokens: no new try before this time, per key. */
  readonly #coolDownUntil = new Map<string, number>();

  constructor(options: RefreshCoordinatorOptions) {
    if (typeof options?.refresh !== 'function' || typeof options.store?.loadTokens !== 'function')
      throw new McpHostError(
        'INVALID_ARGUMENT',
        'RefreshCoordinator: store and refresh are required',
      );
    const d = refreshCoordinatorDefaults;
    this.#store = options.store;
    this.#refresh = options.refresh;
    this.#serverName = options.serverName;
    this.#marginMs = checkMs('refreshMarginMs', options.refreshMarginMs, d.refreshMarginMs, 0);
    this.#leaseTtlMs = checkMs('leaseTtlMs', options.leaseTtlMs, d.leaseTtlMs, 1);
    this.#requestTimeoutMs = Math.min(
      checkMs('requestTimeoutMs', options.requestTimeoutMs, d.requestTimeoutMs, 1),
      this.#leaseTtlMs,
    );
    this.#maxAttempts = checkMs('maxAttempts', options.maxAttempts, d.maxAttempts, 1);
    this.#retryBaseDelayMs = checkMs(
      'retryBaseDelayMs',
      options.retryBaseDelayMs,
      d.retryBaseDelayMs,
      0,
    );
    this.#retryMaxDelayMs = checkMs(
      'retryMaxDelayMs',
      options.retryMaxDelayMs,
      d.retryMaxDelayMs,
      0,
    );
    this.#logger = options.logger ?? debugLogger;
    this.#now = options.now ?? Date.now;
  }

  /** Whether `tokens` are due for refresh at `now`. */
  isDue(tokens: OAuthTokens, now = this.#now()): boolean {
    if (tokens.expiresAt === undefined) return false;
    const lifetime =
      tokens.issuedAt === undefined ? undefined : Math.max(0, tokens.expiresAt - tokens.issuedAt);
    const margin =
      lifetime === undefined ? this.#marginMs : Math.min(this.#marginMs, lifetime * MARGIN_RATIO);
    return now >= tokens.expiresAt - margin;
  }

  /**
   * The tokens to use for `key`: as stored, or refreshed first when they are due (single-flight).
   * Undefined when there are none (a login is needed). While the stored access token is still
   * valid, a refresh that fails for a passing reason returns it rather than failing.
   */
  async tokens(key: TokenKey, options: RefreshCallOptions = {}): Promise<OAuthTokens | undefined> {
    const current = await this.#store.loadTokens(key);
    if (current === undefined || !this.isDue(current)) return current;
    const name = flightKey(key);
    const stillValid = current.expiresAt! > this.#now();
    if (stillValid && (this.#coolDownUntil.get(name) ?? 0) > this.#now()) return current;
    try {
      return await this.#shared(key, current, options);
    } catch (error) {
      // Passing: the endpoint failed for now, or another holder kept the lease past our wait.
      const passing =
        error instanceof McpHostError &&
        (error.code === 'AUTH_REFRESH_FAILED' || error.code === 'STATE_LOCK_TIMEOUT');
      if (!passing || current.expiresAt! <= this.#now()) throw error;
      this.#coolDownUntil.set(name, this.#now() + this.#retryMaxDelayMs);
      this.#logger.debug('oauth refresh failed; the access token is still valid, using it', {
        server: this.#serverName,
        issuer: key.issuer,
        code: error.code,
      });
      return current;
    }
  }

  /**
   * Refreshes now (after the server refused `rejectedAccessToken` with a 401, say), single-flight.
   * When the stored access token is no longer `rejectedAccessToken`, someone refreshed already:
   * those tokens are returned. Fails with `AUTH_LOGIN_REQUIRED` when there is nothing to refresh.
   */
  async refresh(
    key: TokenKey,
    options: RefreshCallOptions & { rejectedAccessToken?: string } = {},
  ): Promise<OAuthTokens> {
    const current = await this.#store.loadTokens(key);
    if (current === undefined) throw this.#loginRequired(key, 'no_tokens');
    if (
      options.rejectedAccessToken !== undefined &&
      current.accessToken !== options.rejectedAccessToken
    )
      return current;
    return this.#shared(key, current, options);
  }

  /** Joins the flight for `key`, or starts one from `basis`; the caller waits within its bounds. */
  #shared(key: TokenKey, basis: OAuthTokens, options: RefreshCallOptions): Promise<OAuthTokens> {
    let flights = flightsByStore.get(this.#store);
    if (flights === undefined)
      flightsByStore.set(this.#store, (flights = new Map<string, Promise<OAuthTokens>>()));
    const name = flightKey(key);
    let flight = flights.get(name);
    if (flight === undefined) {
      const started = this.#fly(key, basis);
      flight = started;
      flights.set(name, started);
      const forget = (): void => {
        if (flights.get(name) === started) flights.delete(name);
      };
      started.then(forget, forget);
    }
    const timeoutMs = options.timeoutMs ?? refreshCoordinatorDefaults.timeoutMs;
    const deadline = deadlineSignal(
      timeoutMs,
      () =>
        new McpHostError(
          'REQUEST_TIMEOUT',
          `OAuth token refresh for ${key.issuer}: no result within ${timeoutMs} ms`,
          {
            serverName: this.#serverName,
            details: { kind: 'total', timeoutMs },
          },
        ),
    );
    const linked = linkSignals(options.signal, deadline.signal);
    return raceSignal(flight, linked.signal, (reason) =>
      reason instanceof McpHostError
        ? reason
        : new McpHostError(
            'ABORTED',
            `OAuth token refresh for ${key.issuer}: cancelled by the caller`,
            {
              serverName: this.#serverName,
              cause: reason,
            },
          ),
    ).finally(() => {
      deadline.cleanup();
      linked.cleanup();
    });
  }

  /** One flight: tries under the lease, with backoff between transient failures. */
  async #fly(key: TokenKey, basis: OAuthTokens): Promise<OAuthTokens> {
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#attempt(key, basis);
      if ('tokens' in outcome) {
        this.#coolDownUntil.delete(flightKey(key));
        return outcome.tokens;
      }
      const { failure } = outcome;
      const delayMs = Math.min(
        this.#retryMaxDelayMs,
        failure.retryAfterMs ??
          backoffDelay(attempt, {
            baseDelayMs: this.#retryBaseDelayMs,
            maxDelayMs: this.#retryMaxDelayMs,
            jitter: 'equal',
          }),
      );
      const retryable = failure.kind === 'transient' && attempt < this.#maxAttempts;
      const tooLong = (failure.retryAfterMs ?? 0) > this.#retryMaxDelayMs;
      this.#logger.debug('oauth refresh failed', {
        server: this.#serverName,
        issuer: key.issuer,
        attempt,
        reason: failure.reason,
        status: failure.status,
        oauthError: failure.oauthError,
        retryInMs: retryable && !tooLong ? delayMs : undefined,
      });
      if (!retryable || tooLong) throw this.#failed(key, failure, attempt, outcome.cause);
      await abortableDelay(delayMs, undefined);
    }
  }

  /**
   * One try: take the lease, read the tokens again, and either use someone else's fresh tokens or
   * spend the refresh token once. Resolves to the tokens or a transient/rejected failure; throws
   * the typed error for `invalid_grant`, `invalid_client` and nothing-to-refresh.
   */
  async #attempt(
    key: TokenKey,
    basis: OAuthTokens,
  ): Promise<{ tokens: OAuthTokens } | { failure: RefreshFailure; cause: unknown }> {
    const lease = await this.#store.lease?.(key, {
      ttlMs: this.#leaseTtlMs,
      // A holder keeps it for one request at most: waiting out a dead one's lease is enough.
      timeoutMs: this.#leaseTtlMs + this.#requestTimeoutMs,
    });
    try {
      const stored = await this.#store.loadTokens(key);
      if (stored === undefined) throw this.#loginRequired(key, 'no_tokens');
      const replaced =
        stored.accessToken !== basis.accessToken || stored.refreshToken !== basis.refreshToken;
      if (replaced && !this.isDue(stored)) {
        this.#logger.debug('oauth refresh: tokens were refreshed by another holder, using theirs', {
          server: this.#serverName,
          issuer: key.issuer,
        });
        return { tokens: stored };
      }
      if (stored.refreshToken === undefined) throw this.#loginRequired(key, 'no_refresh_token');
      const spent = stored.refreshToken;
      const request = deadlineSignal(this.#requestTimeoutMs, () =>
        Object.assign(new Error(`no answer within ${this.#requestTimeoutMs} ms`), {
          name: 'TimeoutError',
        }),
      );
      const linked = linkSignals(request.signal, lease?.signal);
      let fresh: OAuthTokens;
      try {
        fresh = await this.#refresh(stored as RefreshableTokens, { key, signal: linked.signal });
      } catch (error) {
        const failure = linked.signal.aborted
          ? ({ kind: 'transient', reason: 'timeout' } as const)
          : classifyRefreshFailure(error);
        if (failure.kind === 'invalid_grant')
          return { tokens: await this.#clearRefused(key, spent, error) };
        if (failure.kind === 'invalid_client') throw this.#clientInvalid(key, failure, error);
        return { failure, cause: error };
      } finally {
        request.cleanup();
        linked.cleanup();
      }
      if (
        typeof fresh?.accessToken !== 'string' ||
        fresh.accessToken === '' ||
        typeof fresh.tokenType !== 'string'
      )
        return { failure: { kind: 'rejected', reason: 'rejected' }, cause: undefined };
      const saved: OAuthTokens = {
        ...fresh,
        refreshToken: fresh.refreshToken ?? spent,
        ...(fresh.scope === undefined && stored.scope !== undefined ? { scope: stored.scope } : {}),
        issuedAt: fresh.issuedAt ?? this.#now(),
      };
      await this.#store.saveTokens(key, saved);
      this.#logger.debug('oauth refresh: new tokens saved', {
        server: this.#serverName,
        issuer: key.issuer,
        generation: lease?.generation,
        rotated: fresh.refreshToken !== undefined && fresh.refreshToken !== spent,
      });
      return { tokens: saved };
    } finally {
      await lease?.release();
    }
  }

  /**
   * `invalid_grant`: clears the tokens if they still hold the refused refresh token (a holder whose
   * lease ran out may have saved newer ones meanwhile: those are returned), then fails.
   */
  async #clearRefused(key: TokenKey, spent: string, cause: unknown): Promise<OAuthTokens> {
    const now = await this.#store.loadTokens(key);
    if (now !== undefined && now.refreshToken !== spent && !this.isDue(now)) return now;
    await this.#store.clearTokens(key);
    this.#logger.info('oauth refresh token refused (invalid_grant): tokens cleared, login needed', {
      server: this.#serverName,
      issuer: key.issuer,
    });
    throw this.#loginRequired(key, 'invalid_grant', cause);
  }

  #loginRequired(key: TokenKey, reason: string, cause?: unknown): McpHostError {
    const why =
      reason === 'invalid_grant'
        ? 'the authorization server refused the refresh token (invalid_grant); the tokens were cleared'
        : reason === 'no_refresh_token'
          ? 'the tokens expired and there is no refresh token'
          : 'there are no tokens';
    return new McpHostError('AUTH_LOGIN_REQUIRED', `OAuth login needed for ${key.issuer}: ${why}`, {
      serverName: this.#serverName,
      cause,
      details: { reason, issuer: key.issuer, clientId: key.clientId, resource: key.resource },
    });
  }

  #clientInvalid(key: TokenKey, failure: RefreshFailure, cause: unknown): McpHostError {
    return new McpHostError(
      'AUTH_CLIENT_INVALID',
      `OAuth token refresh for ${key.issuer}: the authorization server refused client '${key.clientId}' (invalid_client)${describe(cause)}`,
      {
        serverName: this.#serverName,
        cause,
        details: { issuer: key.issuer, clientId: key.clientId, status: failure.status },
      },
    );
  }

  #failed(key: TokenKey, failure: RefreshFailure, attempts: number, cause: unknown): McpHostError {
    const what =
      failure.reason === 'timeout'
        ? `no answer within ${this.#requestTimeoutMs} ms`
        : failure.reason === 'network'
          ? 'the token endpoint could not be reached'
          : `${failure.status === undefined ? 'refused' : `HTTP ${failure.status}`}${failure.oauthError === undefined ? '' : ` (${failure.oauthError})`}`;
    return new McpHostError(
      'AUTH_REFRESH_FAILED',
      `OAuth token refresh for ${key.issuer} failed after ${attempts} ${attempts === 1 ? 'try' : 'tries'}: ${what}${describe(cause)}; the tokens were kept`,
      {
        serverName: this.#serverName,
        cause,
        details: {
          reason: failure.reason,
          status: failure.status,
          oauthError: failure.oauthError,
          retryAfterMs: failure.retryAfterMs,
          attempts,
          issuer: key.issuer,
        },
      },
    );
  }
}

/** The server's `error_description`, short and redacted, when it sent one. */
function describe(cause: unknown): string {
  const text = (cause as { error_description?: unknown } | null)?.error_description;
  return typeof text === 'string' && text !== '' ? `: ${preview(text)}` : '';
}

function flightKey(key: TokenKey): string {
  return JSON.stringify([key.issuer, key.clientId, key.resource]);
}

function checkMs(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min)
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `RefreshCoordinator: ${name} must be a finite number, at least ${min}`,
    );
  return value;
}
