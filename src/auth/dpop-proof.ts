import * as oauth from 'oauth4webapi';
import { webcrypto } from 'node:crypto';
import { McpHostError } from '../errors/mcp-host-error.js';
import { addSecret } from '../errors/redact.js';
import { toDpopKey, type DpopKey } from './token-store.js';

/**
 * One DPoP key (RFC 9449) and the nonces servers handed out, per origin: proofs for token
 * requests (`handle`, passed to oauth4webapi) and for each MCP request (`headers`: the
 * `Authorization: DPoP <token>` and a fresh `DPoP` proof with `htm`, `htu`, `ath` and the
 * origin's nonce). The key is ES256; `key` gives it as a private JWK, to be stored beside the
 * tokens bound to it (in the 0600 token store), so that every process sharing the store can use
 * them; `fromKey` makes the proof of a stored key. Its private part is registered with the
 * redactor and kept in private fields: `inspect` and JSON show none of it.
 */
export class DpopProof {
  readonly #handle: oauth.DPoPHandle;
  readonly #key: DpopKey;

  private constructor(handle: oauth.DPoPHandle, key: DpopKey) {
    this.#handle = handle;
    this.#key = key;
    addSecret(key.d);
  }

  /** A new proof key. */
  static async create(): Promise<DpopProof> {
    const pair = await oauth.generateKeyPair('ES256', { extractable: true });
    const jwk = await webcrypto.subtle.exportKey('jwk', pair.privateKey);
    const key = toDpopKey(jwk);
    if (key === undefined) {
      throw new McpHostError('AUTH_FAILED', 'no DPoP key could be made', {
        details: { step: 'dpop-proof' },
      });
    }
    // The handle signs with a non-extractable copy: only `key` (for the store) has the private part.
    return DpopProof.fromKey(key);
  }

  /** The proof of a stored key (`key()` of another proof, maybe in another process). */
  static async fromKey(key: DpopKey): Promise<DpopProof> {
    const checked = toDpopKey(key);
    if (checked === undefined) {
      throw new McpHostError('AUTH_FAILED', 'the stored DPoP key is not an EC P-256 key pair', {
        details: { step: 'dpop-proof' },
      });
    }
    const algorithm = { name: 'ECDSA', namedCurve: 'P-256' };
    const { d: _private, ...publicJwk } = checked;
    const [privateKey, publicKey] = await Promise.all([
      webcrypto.subtle.importKey('jwk', { ...checked, ext: false }, algorithm, false, ['sign']),
      // Public keys are extractable: each proof carries it as `jwk`.
      webcrypto.subtle.importKey('jwk', publicJwk, algorithm, true, ['verify']),
    ]);
    return new DpopProof(oauth.DPoP({}, { privateKey, publicKey }), checked);
  }

  /** The key pair, private part included: stored beside the tokens bound to it. */
  key(): DpopKey {
    return { ...this.#key };
  }

  /** Whether `key` is this proof's key pair. */
  hasKey(key: DpopKey): boolean {
    return key.x === this.#key.x && key.y === this.#key.y && key.d === this.#key.d;
  }

  /** The handle for oauth4webapi's token requests (it adds the proof and keeps the nonces). */
  get handle(): oauth.DPoPHandle {
    return this.#handle;
  }

  /** The JWK SHA-256 thumbprint of the public key (`cnf.jkt` of the tokens bound to it). */
  thumbprint(): Promise<string> {
    return this.#handle.calculateThumbprint();
  }

  /**
   * The headers of one request with a DPoP-bound `accessToken`: `authorization` (DPoP scheme) and
   * `dpop` (a proof made for this method and URL, with the token's hash and the origin's nonce).
   */
  async headers(
    accessToken: string,
    request: { url: URL; method: string },
  ): Promise<Record<string, string>> {
    let captured: Record<string, string> | undefined;
    await this.#resourceRequest(accessToken, request, (init) => {
      captured = init.headers as Record<string, string>;
      return new Response(null, { status: 204 });
    });
    if (captured?.dpop === undefined) {
      throw new McpHostError('AUTH_FAILED', 'no DPoP proof could be made', {
        details: { step: 'dpop-proof' },
      });
    }
    return { authorization: captured.authorization as string, dpop: captured.dpop };
  }

  /** Remembers the nonce a server at `url`'s origin asked for (`DPoP-Nonce`), for the next proofs. */
  async rememberNonce(url: URL, nonce: string): Promise<void> {
    // A request answered in-process with the nonce: the handle keeps it for the origin.
    await this.#resourceRequest(
      'nonce',
      { url, method: 'HEAD' },
      () => new Response(null, { status: 204, headers: { 'dpop-nonce': nonce } }),
    );
  }

  async #resourceRequest(
    accessToken: string,
    request: { url: URL; method: string },
    answer: (init: RequestInit) => Response,
  ): Promise<void> {
    const url = new URL(request.url.href);
    await oauth.protectedResourceRequest(accessToken, request.method, url, undefined, undefined, {
      DPoP: this.#handle,
      [oauth.allowInsecureRequests]: true,
      [oauth.customFetch]: (_url, init) => Promise.resolve(answer(init)),
    });
  }
}

/**
 * The DPoP keys of one provider: its own, for new grants when the store holds no key for the
 * tokens (made once, and anew after `retire()`: the tokens were cleared), and the proof last made
 * from a stored key (`OAuthTokens.dpopKey`), reused while the store holds that key.
 */
export class DpopKeyring {
  #own: Promise<DpopProof> | undefined;
  #stored: DpopProof | undefined;

  own(): Promise<DpopProof> {
    this.#own ??= DpopProof.create();
    return this.#own;
  }

  /** The proof of a stored key: `also`, this ring's, or one made now. */
  async fromKey(key: DpopKey, also?: DpopProof): Promise<DpopProof> {
    for (const proof of [also, this.#stored, await this.#own])
      if (proof?.hasKey(key) === true) return proof;
    this.#stored = await DpopProof.fromKey(key);
    return this.#stored;
  }

  retire(): void {
    this.#own = undefined;
    this.#stored = undefined;
  }
}

/** True when the authorization server takes DPoP proofs signed with ES256 (the key made here). */
export function supportsDpop(as: oauth.AuthorizationServer): boolean {
  const algs = as.dpop_signing_alg_values_supported;
  return Array.isArray(algs) && algs.includes('ES256');
}

/**
 * Runs a token request once, and once more when the server answered `use_dpop_nonce` (the
 * handle has kept the nonce from that answer): RFC 9449 section 8.
 */
export async function withDpopNonceRetry<T>(
  dpop: DpopProof | undefined,
  request: () => Promise<T>,
): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (dpop === undefined || !oauth.isDPoPNonceError(error)) throw error;
    return request();
  }
}

/** `details.reason` of the refusal to refresh DPoP tokens bound to another process's key. */
export const FOREIGN_DPOP_REASON = 'foreign-dpop';

/** The refresh coordinator's failure for a refresh refused because the DPoP tokens are another's. */
export function isForeignDpopRefusal(error: unknown): boolean {
  return (
    error instanceof McpHostError &&
    error.code === 'AUTH_REFRESH_FAILED' &&
    error.cause instanceof McpHostError &&
    error.cause.details?.reason === FOREIGN_DPOP_REASON
  );
}
