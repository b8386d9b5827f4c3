import * as oauth from 'oauth4webapi';
import { McpHostError } from '../errors/mcp-host-error.js';

/**
 * One DPoP key (RFC 9449) and the nonces servers handed out, per origin: proofs for token
 * requests (`handle`, passed to oauth4webapi) and for each MCP request (`headers`: the
 * `Authorization: DPoP <token>` and a fresh `DPoP` proof with `htm`, `htu`, `ath` and the
 * origin's nonce). The key is ES256, made in memory; the private half is not extractable and
 * never leaves the object, so a DPoP-bound token is usable only by the process that got it.
 */
export class DpopProof {
  readonly #handle: oauth.DPoPHandle;

  private constructor(handle: oauth.DPoPHandle) {
    this.#handle = handle;
  }

  /** A new proof key. */
  static async create(): Promise<DpopProof> {
    // WebCrypto public keys are always extractable (each proof carries it as `jwk`); the private
    // key is not.
    return new DpopProof(oauth.DPoP({}, await oauth.generateKeyPair('ES256')));
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
