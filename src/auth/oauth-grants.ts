import * as oauth from 'oauth4webapi';
import { McpHostError } from '../errors/mcp-host-error.js';
import { addSecret } from '../errors/redact.js';
import { clientAuthFor } from './client-authentication.js';
import { authError } from './client-identity.js';
import { withDpopNonceRetry, type DpopProof } from './dpop-proof.js';
import type { TokenResponse } from './oauth-flow.js';
import { boundedFetch, requestOptions, type OAuthHttpOptions } from './oauth-http.js';

/** RFC 7523 section 2.1: an assertion (a JWT) as the grant. */
export const JWT_BEARER_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** RFC 8693: one token exchanged for another. */
export const TOKEN_EXCHANGE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** Token type identifiers of RFC 8693 section 3, and the ID-JAG of enterprise-managed authorization. */
export const TOKEN_TYPES = Object.freeze({
  accessToken: 'urn:ietf:params:oauth:token-type:access_token',
  idToken: 'urn:ietf:params:oauth:token-type:id_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
  idJag: 'urn:ietf:params:oauth:token-type:id-jag',
});

/** What a JWT-bearer assertion is asked for: the authorization server and resource it is for. */
export interface AssertionRequest {
  /** The authorization server's issuer (the assertion's audience). */
  issuer: string;
  /** The RFC 8707 resource (the MCP server). */
  resource: string;
  /** The scopes the token request asks for (may be empty). */
  scopes: readonly string[];
  signal: AbortSignal | undefined;
}

/** Gives the assertion of a JWT-bearer grant (a workload identity token, an ID-JAG, ...). */
export type AssertionSource = (request: AssertionRequest) => string | Promise<string>;

/** Where and as whom a token request is made. */
export interface GrantContext {
  authorizationServer: oauth.AuthorizationServer;
  clientId: string;
  clientAuth: oauth.ClientAuth;
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  dpop?: DpopProof | undefined;
}

/**
 * The RFC 7523 JWT-bearer grant: `assertion` for tokens for `resource`. Tried once (and once more
 * only for a DPoP nonce): a refused assertion is final, surfaced as `AUTH_FAILED` with the
 * server's `details.error` (`invalid_grant`, `invalid_scope`, `unauthorized_client`).
 */
export async function jwtBearerGrant(
  context: GrantContext,
  request: { assertion: string; resource: string; scopes: readonly string[] },
): Promise<TokenResponse> {
  const as = context.authorizationServer;
  const client: oauth.Client = { client_id: context.clientId };
  const parameters: Record<string, string> = {
    assertion: request.assertion,
    resource: request.resource,
  };
  if (request.scopes.length > 0) parameters.scope = request.scopes.join(' ');
  try {
    return await withDpopNonceRetry(context.dpop, async () => {
      const response = await oauth.genericTokenEndpointRequest(
        as,
        client,
        context.clientAuth,
        JWT_BEARER_GRANT_TYPE,
        parameters,
        {
          ...requestOptions(as.token_endpoint as string, context.fetch),
          ...(context.dpop === undefined ? {} : { DPoP: context.dpop.handle }),
        },
      );
      return oauth.processGenericTokenEndpointResponse(as, client, response);
    });
  } catch (error) {
    throw authError(error, 'token-request', `the JWT-bearer grant at ${as.issuer} failed`);
  }
}

/** The client_credentials grant (machine to machine) for `resource`: `AUTH_FAILED` when refused. */
export async function clientCredentialsGrant(
  context: GrantContext,
  request: { resource: string; scopes: readonly string[] },
): Promise<TokenResponse> {
  const as = context.authorizationServer;
  const client: oauth.Client = { client_id: context.clientId };
  const parameters: Record<string, string> = { resource: request.resource };
  if (request.scopes.length > 0) parameters.scope = request.scopes.join(' ');
  try {
    return await withDpopNonceRetry(context.dpop, async () => {
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        client,
        context.clientAuth,
        parameters,
        {
          ...requestOptions(as.token_endpoint as string, context.fetch),
          ...(context.dpop === undefined ? {} : { DPoP: context.dpop.handle }),
        },
      );
      return oauth.processClientCredentialsResponse(as, client, response);
    });
  } catch (error) {
    throw authError(
      error,
      'token-request',
      `the client_credentials request to ${as.issuer} failed`,
    );
  }
}

export interface TokenExchangeOptions extends OAuthHttpOptions {
  /** The token endpoint of the server that exchanges (for enterprise-managed authorization: the IdP). */
  tokenEndpoint: string | URL;
  /** Our client id there. */
  clientId: string;
  /** Our client secret there (sent as `client_secret_basic`); none: the client id goes in the body. */
  clientSecret?: string;
  subjectToken: string;
  /** One of `TOKEN_TYPES` (or another URI). */
  subjectTokenType: string;
  requestedTokenType?: string;
  audience?: string;
  resource?: string;
  scopes?: readonly string[];
}

/** What a token exchange gave. */
export interface ExchangedToken {
  /** The issued token (RFC 8693 names it `access_token` whatever its type). */
  token: string;
  /** `issued_token_type` (absent if the server left it out). */
  issuedTokenType?: string;
  /** `token_type`, lower case (`n_a` when the token is not an access token). */
  tokenType: string;
  expiresIn?: number;
}

/**
 * The RFC 8693 token exchange: `subjectToken` for a token of `requestedTokenType`, for `audience`
 * and `resource`. Failures are `AUTH_FAILED` with `details.step` 'token-exchange' and the server's
 * `details.error`; the tokens are registered as secrets.
 */
export async function exchangeToken(options: TokenExchangeOptions): Promise<ExchangedToken> {
  const endpoint = new URL(options.tokenEndpoint);
  const as: oauth.AuthorizationServer = {
    issuer: endpoint.origin,
    token_endpoint: endpoint.href,
  };
  const client: oauth.Client = { client_id: options.clientId };
  addSecret(options.subjectToken);
  if (options.clientSecret !== undefined) addSecret(options.clientSecret);
  const clientAuth =
    options.clientSecret === undefined
      ? oauth.None()
      : clientAuthFor('client_secret_basic', options.clientSecret, undefined);
  const parameters: Record<string, string> = {
    subject_token: options.subjectToken,
    subject_token_type: options.subjectTokenType,
  };
  if (options.requestedTokenType !== undefined)
    parameters.requested_token_type = options.requestedTokenType;
  if (options.audience !== undefined) parameters.audience = options.audience;
  if (options.resource !== undefined) parameters.resource = options.resource;
  if (options.scopes !== undefined && options.scopes.length > 0)
    parameters.scope = options.scopes.join(' ');
  const fetchFn = boundedFetch(options);
  let response: oauth.TokenEndpointResponse;
  try {
    const answer = await oauth.genericTokenEndpointRequest(
      as,
      client,
      clientAuth,
      TOKEN_EXCHANGE_GRANT_TYPE,
      parameters,
      {
        ...requestOptions(endpoint, fetchFn),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
    );
    response = await oauth.processGenericTokenEndpointResponse(as, client, answer, {
      // RFC 8693 section 2.2.1: a token that is not an access token has token_type N_A.
      recognizedTokenTypes: { n_a: () => {} },
    });
  } catch (error) {
    throw authError(error, 'token-exchange', `the token exchange at ${endpoint.origin} failed`);
  }
  addSecret(response.access_token);
  const issued = response.issued_token_type;
  return {
    token: response.access_token,
    tokenType: response.token_type,
    ...(typeof issued === 'string' ? { issuedTokenType: issued } : {}),
    ...(response.expires_in === undefined ? {} : { expiresIn: response.expires_in }),
  };
}

export interface IdJagAssertionOptions extends Omit<OAuthHttpOptions, 'signal'> {
  /** The enterprise identity provider's token endpoint. */
  tokenEndpoint: string | URL;
  /** Our client id at the identity provider. */
  clientId: string;
  clientSecret?: string;
  /** The user's ID token from the identity provider (or a function giving a current one). */
  idToken: string | (() => string | Promise<string>);
}

/**
 * Enterprise-managed authorization (cross-app access): an `AssertionSource` that exchanges the
 * user's ID token at the identity provider (RFC 8693) for an ID-JAG (an identity assertion
 * authorization grant) whose audience is the MCP server's authorization server and whose resource
 * is the MCP server; `OAuthProvider` with `grant: 'jwt_bearer'` then trades it for tokens.
 */
export function idJagAssertion(options: IdJagAssertionOptions): AssertionSource {
  return async (request) => {
    const idToken = typeof options.idToken === 'string' ? options.idToken : await options.idToken();
    const exchanged = await exchangeToken({
      ...options,
      subjectToken: idToken,
      subjectTokenType: TOKEN_TYPES.idToken,
      requestedTokenType: TOKEN_TYPES.idJag,
      audience: request.issuer,
      resource: request.resource,
      ...(request.scopes.length > 0 ? { scopes: request.scopes } : {}),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    if (
      exchanged.issuedTokenType !== undefined &&
      exchanged.issuedTokenType !== TOKEN_TYPES.idJag
    ) {
      throw new McpHostError(
        'AUTH_FAILED',
        `the identity provider issued a '${exchanged.issuedTokenType}', not an ID-JAG`,
        { details: { step: 'token-exchange' } },
      );
    }
    return exchanged.token;
  };
}
