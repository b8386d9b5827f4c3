/**
 * A scripted OAuth world on one 127.0.0.1 server: protected resource metadata at
 * `/.well-known/oauth-protected-resource/mcp`, authorization server metadata at
 * `/.well-known/oauth-authorization-server/as`, and `/as/authorize` (answers with a redirect
 * carrying `code`, `state` and `iss`), `/as/token`, `/as/register`. Every request is recorded;
 * the test changes behaviour through `options`.
 */
import type { ServerResponse } from 'node:http';
import {
  sendJson,
  startHttpServer,
  type RecordedRequest,
  type TestHttpServer,
} from './http-test-server.js';

export interface OAuthFixtureOptions {
  /** Overrides of the authorization server metadata. */
  metadata?: Record<string, unknown>;
  /** The PRM `resource` (default: the server's `/mcp` URL). */
  prmResource?: (origin: string) => string;
  prmScopes?: string[];
  /** The PRM's `authorization_servers`, from the fixture's issuer (default `[issuer]`). */
  prmAuthorizationServers?: (issuer: string) => string[];
  /** `iss` in the redirect: the issuer (default), another value, or none. */
  iss?: 'correct' | 'wrong' | 'omit';
  /** The access tokens handed out, in order (default `access-<n>`). */
  accessToken?: (n: number, body: URLSearchParams) => string;
  refreshToken?: string;
  expiresIn?: number;
  /**
   * Answers a token request instead of the default Bearer answer (return undefined for the
   * default): the status, JSON body and extra headers.
   */
  token?: (
    request: TokenRequest,
    n: number,
  ) => { status?: number; json: unknown; headers?: Record<string, string> } | undefined;
  /** Handles a path the fixture does not know (true when it answered). */
  route?: (url: URL, request: RecordedRequest, res: ServerResponse) => boolean;
}

/** A recorded token request. */
export interface TokenRequest {
  body: URLSearchParams;
  authorization: string | undefined;
  /** The `DPoP` proof header, if any. */
  dpop: string | undefined;
}

export interface OAuthFixture extends AsyncDisposable {
  server: TestHttpServer;
  /** The MCP URL the resource metadata describes. */
  mcpUrl: string;
  issuer: string;
  options: OAuthFixtureOptions;
  /** Form bodies of token requests, with their authorization header. */
  tokenRequests: TokenRequest[];
  authorizeRequests: URLSearchParams[];
}

export async function startOAuthFixture(options: OAuthFixtureOptions = {}): Promise<OAuthFixture> {
  const server = await startHttpServer();
  const issuer = `${server.origin}/as`;
  const fixture: OAuthFixture = {
    server,
    mcpUrl: `${server.origin}/mcp`,
    issuer,
    options,
    tokenRequests: [],
    authorizeRequests: [],
    [Symbol.asyncDispose]: () => server[Symbol.asyncDispose](),
  };
  let issued = 0;
  server.handle((request, res: ServerResponse) => {
    const url = new URL(request.url, server.origin);
    const opts = fixture.options;
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
      sendJson(res, {
        resource: opts.prmResource?.(server.origin) ?? `${server.origin}/mcp`,
        authorization_servers: opts.prmAuthorizationServers?.(issuer) ?? [issuer],
        ...(opts.prmScopes === undefined ? {} : { scopes_supported: opts.prmScopes }),
      });
    } else if (url.pathname === '/.well-known/oauth-authorization-server/as') {
      sendJson(res, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        token_endpoint_auth_methods_supported: [
          'client_secret_basic',
          'client_secret_post',
          'none',
        ],
        ...opts.metadata,
      });
    } else if (url.pathname === '/as/authorize') {
      fixture.authorizeRequests.push(url.searchParams);
      const back = new URL(url.searchParams.get('redirect_uri') ?? 'http://127.0.0.1/cb');
      back.searchParams.set('code', `code-${fixture.authorizeRequests.length}-canary`);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      if ((opts.iss ?? 'correct') === 'correct') back.searchParams.set('iss', issuer);
      if (opts.iss === 'wrong') back.searchParams.set('iss', 'https://evil.example');
      res.writeHead(302, { location: back.href }).end();
    } else if (url.pathname === '/as/token') {
      const body = new URLSearchParams(request.body);
      const dpop = request.headers.dpop;
      const recorded: TokenRequest = {
        body,
        authorization: request.headers.authorization,
        dpop: Array.isArray(dpop) ? dpop.join(', ') : dpop,
      };
      fixture.tokenRequests.push(recorded);
      issued += 1;
      const custom = opts.token?.(recorded, issued);
      if (custom !== undefined) {
        res
          .writeHead(custom.status ?? 200, {
            'content-type': 'application/json',
            'cache-control': 'no-store',
            ...custom.headers,
          })
          .end(JSON.stringify(custom.json));
        return;
      }
      sendJson(res, {
        access_token: opts.accessToken?.(issued, body) ?? `access-${issued}`,
        token_type: 'Bearer',
        expires_in: opts.expiresIn ?? 3600,
        ...(body.get('scope') === null ? {} : { scope: body.get('scope') }),
        ...(opts.refreshToken === undefined ? {} : { refresh_token: opts.refreshToken }),
      });
    } else if (url.pathname === '/as/register') {
      const body = JSON.parse(request.body) as Record<string, unknown>;
      res
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ...body, client_id: 'dynamic-client' }));
    } else if (opts.route?.(url, request, res) !== true) {
      res.writeHead(404).end();
    }
  });
  return fixture;
}

/** Follows the authorization URL like a browser whose user consents: returns the redirect URL. */
export async function consent({ url }: { url: URL }): Promise<string> {
  const response = await fetch(url, { redirect: 'manual' });
  await response.body?.cancel();
  return response.headers.get('location') ?? '';
}
