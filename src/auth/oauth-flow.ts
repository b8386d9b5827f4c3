import * as oauth from 'oauth4webapi';
import { McpHostError } from '../errors/mcp-host-error.js';
import { addSecret } from '../errors/redact.js';
import { authError } from './client-identity.js';
import { withDpopNonceRetry, type DpopProof } from './dpop-proof.js';
import { requestOptions, type OAuthFetch } from './oauth-http.js';

/** What the user must open to log in, and until when the flow waits for the answer. */
export interface AuthorizationStart {
  url: URL;
  state: string;
  /** Milliseconds since the epoch after which `complete` refuses the answer. */
  expiresAt: number;
}

/** The token endpoint's answer to a redeemed code (oauth4webapi's, validated). */
export type TokenResponse = oauth.TokenEndpointResponse;

export interface OAuthFlowOptions {
  authorizationServer: oauth.AuthorizationServer;
  clientId: string;
  clientAuth: oauth.ClientAuth;
  redirectUri: string;
  /** The RFC 8707 resource, sent verbatim in the authorization and token requests. */
  resource: string;
  /** The scopes to ask for; none: the `scope` parameter is left out. */
  scopes?: readonly string[];
  /** How long the flow waits for `complete` (default 10 minutes). */
  ttlMs?: number;
  fetch: OAuthFetch;
  /** Binds the tokens to this DPoP key (RFC 9449): the code is redeemed with a proof. */
  dpop?: DpopProof;
}

export const DEFAULT_FLOW_TTL_MS = 10 * 60_000;

/**
 * One authorization-code flow with PKCE S256, in two steps so that anything can drive it (a
 * loopback listener, a pasted URL, the host, a management API): `start()` makes the URL to open
 * (one verifier and one random `state` per flow); `complete(redirectUrlOrCode)` checks the answer
 * (the `state`, then RFC 9207 `iss` against the issuer, both before the code is redeemed) and
 * redeems the code, once: the state is single-use. Refused outright when the authorization server
 * does not advertise S256.
 */
export class OAuthFlow {
  readonly #options: OAuthFlowOptions;
  readonly #verifier = oauth.generateRandomCodeVerifier();
  readonly #state = oauth.generateRandomState();
  #started: AuthorizationStart | undefined;
  #used = false;

  constructor(options: OAuthFlowOptions) {
    const methods = options.authorizationServer.code_challenge_methods_supported;
    if (!Array.isArray(methods) || !methods.includes('S256')) {
      throw new McpHostError(
        'AUTH_FAILED',
        `authorization server ${options.authorizationServer.issuer} does not advertise PKCE S256; refusing to log in without it`,
        { details: { step: 'authorization-request' } },
      );
    }
    if (options.authorizationServer.authorization_endpoint === undefined) {
      throw new McpHostError(
        'AUTH_FAILED',
        `authorization server ${options.authorizationServer.issuer} has no authorization endpoint`,
        { details: { step: 'authorization-request' } },
      );
    }
    this.#options = options;
    addSecret(this.#verifier);
  }

  /** The scopes this flow asks for. */
  get scopes(): readonly string[] {
    return this.#options.scopes ?? [];
  }

  /** Makes the authorization URL (same answer when called again). */
  async start(): Promise<AuthorizationStart> {
    if (this.#started !== undefined) return this.#started;
    const { authorizationServer: as } = this.#options;
    const url = new URL(as.authorization_endpoint as string);
    requestOptions(url, this.#options.fetch);
    const params = url.searchParams;
    params.set('response_type', 'code');
    params.set('client_id', this.#options.clientId);
    params.set('redirect_uri', this.#options.redirectUri);
    params.set('code_challenge', await oauth.calculatePKCECodeChallenge(this.#verifier));
    params.set('code_challenge_method', 'S256');
    params.set('state', this.#state);
    params.set('resource', this.#options.resource);
    const scopes = this.#options.scopes ?? [];
    if (scopes.length > 0) params.set('scope', scopes.join(' '));
    this.#started = {
      url,
      state: this.#state,
      expiresAt: Date.now() + (this.#options.ttlMs ?? DEFAULT_FLOW_TTL_MS),
    };
    return this.#started;
  }

  /**
   * Checks the authorization response and redeems its code. `redirectUrlOrCode` is the URL the
   * browser was sent back to (its `state` and `iss` are checked), or a bare code pasted by the
   * user (nothing to check: the user vouches for it).
   */
  async complete(redirectUrlOrCode: string | URL): Promise<TokenResponse> {
    const started = this.#started;
    if (started === undefined) {
      throw new McpHostError('INVALID_ARGUMENT', 'complete() before start(): no flow to complete');
    }
    const as = this.#options.authorizationServer;
    const client: oauth.Client = { client_id: this.#options.clientId };
    const answer = String(redirectUrlOrCode).trim();
    let params: URLSearchParams;
    if (/^[a-z][a-z0-9+.-]*:/i.test(answer) || answer.startsWith('?')) {
      const query = answer.startsWith('?')
        ? new URLSearchParams(answer)
        : new URL(answer).searchParams;
      const code = query.get('code');
      if (code !== null) addSecret(code);
      if (query.get('state') !== this.#state) {
        throw new McpHostError(
          'AUTH_FAILED',
          'the authorization response does not carry the state of this flow; refused',
          { details: { step: 'authorization-response' } },
        );
      }
      params = query;
    } else {
      addSecret(answer);
      params = new URLSearchParams({ code: answer, state: this.#state });
      if (as.authorization_response_iss_parameter_supported === true) params.set('iss', as.issuer);
    }
    if (this.#used) {
      throw new McpHostError(
        'AUTH_FAILED',
        'this authorization response was used already; refused',
        {
          details: { step: 'authorization-response' },
        },
      );
    }
    if (Date.now() > started.expiresAt) {
      throw new McpHostError(
        'AUTH_FAILED',
        'the login took too long: the flow expired; start again',
        {
          details: { step: 'authorization-response' },
        },
      );
    }
    this.#used = true;
    let checked: URLSearchParams;
    try {
      checked = oauth.validateAuthResponse(as, client, params, this.#state);
    } catch (error) {
      throw authError(error, 'authorization-response', 'the authorization response was refused');
    }
    const dpop = this.#options.dpop;
    try {
      return await withDpopNonceRetry(dpop, async () => {
        const response = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          this.#options.clientAuth,
          checked,
          this.#options.redirectUri,
          this.#verifier,
          {
            additionalParameters: { resource: this.#options.resource },
            ...requestOptions(as.token_endpoint as string, this.#options.fetch),
            ...(dpop === undefined ? {} : { DPoP: dpop.handle }),
          },
        );
        return oauth.processAuthorizationCodeResponse(as, client, response);
      });
    } catch (error) {
      throw authError(error, 'token-request', `the token request to ${as.issuer} failed`);
    }
  }
}
