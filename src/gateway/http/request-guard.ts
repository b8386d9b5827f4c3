import { timingSafeEqual } from 'node:crypto';
import { bearerDigest, tokenDigest } from '../../internal/bearer-token.js';
import type { IncomingMessage } from 'node:http';

/** Why a request is refused before anything reads its body: the status, a short reason, headers. */
export interface GuardRefusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/** What a `RequestGuard` checks. */
export interface RequestGuardOptions {
  /** The bearer token every request must carry; undefined: no authentication. */
  bearerToken: string | undefined;
  /**
   * Named clients (principals), each with its own bearer token: a request carrying one of them
   * is that client's (`principalOf`). With clients, a request must carry one of their tokens or
   * `bearerToken` (when set).
   */
  clients?: ReadonlyMap<string, string>;
  /** The address the listener is bound to, and its port. */
  hostname: string;
  port: number;
  /** Origins allowed besides the listener's own (`https://app.example`). */
  allowedOrigins: readonly string[];
  /** `Host` values allowed besides the loopback names with the port (`gateway.internal:8080`). */
  allowedHosts: readonly string[];
}

/**
 * The checks every request to the gateway passes before anything else, in this order:
 *
 * 1. `Host` (against DNS rebinding): `localhost`, `127.0.0.1`, `[::1]` or the bound address,
 *    with the listener's port, or one of `allowedHosts`; else 403.
 * 2. `Origin`: absent (not a browser), or the origin of one of those hosts over http, or one of
 *    `allowedOrigins`; else 403.
 * 3. `Authorization: Bearer <token>` when a token is set, compared in constant time; else 401
 *    with `WWW-Authenticate: Bearer`.
 */
export class RequestGuard {
  readonly #hosts: Set<string>;
  readonly #origins: Set<string>;
  readonly #tokenDigest: Buffer | undefined;
  readonly #clients: ReadonlyArray<{ name: string; digest: Buffer }>;

  constructor(options: RequestGuardOptions) {
    const names = new Set(['localhost', '127.0.0.1', '[::1]', bracketed(options.hostname)]);
    const hosts = new Set<string>();
    for (const name of names) {
      hosts.add(`${name}:${options.port}`);
      if (options.port === 80) hosts.add(name);
    }
    this.#origins = new Set([...hosts].map((host) => `http://${host}`));
    for (const host of options.allowedHosts) hosts.add(host.toLowerCase());
    for (const origin of options.allowedOrigins) this.#origins.add(origin.toLowerCase());
    this.#hosts = hosts;
    this.#tokenDigest =
      options.bearerToken === undefined ? undefined : tokenDigest(options.bearerToken);
    this.#clients = [...(options.clients ?? new Map<string, string>())].map(([name, token]) => ({
      name,
      digest: tokenDigest(token),
    }));
  }

  /** Whether a token is needed (the default one, or a named client's). */
  get #authenticates(): boolean {
    return this.#tokenDigest !== undefined || this.#clients.length > 0;
  }

  /**
   * The refusal of `req`, or undefined when it may go on. `token: false` skips the bearer token
   * (the OAuth callback, which a browser opens).
   */
  check(req: IncomingMessage, options: { token?: boolean } = {}): GuardRefusal | undefined {
    const host = req.headers.host?.toLowerCase();
    if (host === undefined || !this.#hosts.has(host))
      return { status: 403, message: 'Forbidden: this Host is not allowed (DNS rebinding guard)' };
    const origin = req.headers.origin?.toLowerCase();
    if (origin !== undefined && !this.#origins.has(origin))
      return { status: 403, message: 'Forbidden: this Origin is not allowed' };
    if (
      options.token !== false &&
      this.#authenticates &&
      !this.#authorized(req.headers.authorization)
    )
      return {
        status: 401,
        message: 'Unauthorized: send Authorization: Bearer <token>',
        headers: { 'www-authenticate': 'Bearer realm="mcp-host gateway"' },
      };
    return undefined;
  }

  /**
   * The named client whose token `req` carries; undefined for the default token (or none). Call it
   * after `check` let the request through.
   */
  principalOf(req: IncomingMessage): string | undefined {
    const sent = bearerDigest(req.headers.authorization);
    if (sent === undefined) return undefined;
    let found: string | undefined;
    // Every client's token is compared (in constant time), whichever matches.
    for (const client of this.#clients)
      if (timingSafeEqual(sent, client.digest) && found === undefined) found = client.name;
    return found;
  }

  #authorized(header: string | undefined): boolean {
    const sent = bearerDigest(header);
    if (sent === undefined) return false;
    // Digests of equal length, so the comparison takes the same time whatever the token.
    let ok = this.#tokenDigest !== undefined && timingSafeEqual(sent, this.#tokenDigest);
    for (const client of this.#clients) ok = timingSafeEqual(sent, client.digest) || ok;
    return ok;
  }
}

function bracketed(hostname: string): string {
  const lower = hostname.toLowerCase();
  return lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower;
}
