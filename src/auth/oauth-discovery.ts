import * as oauth from 'oauth4webapi';
import { McpHostError } from '../errors/mcp-host-error.js';
import { checkOAuthUrl, type OAuthFetch } from './oauth-http.js';

/** What discovery found for one MCP server. */
export interface OAuthDiscovery {
  /**
   * The RFC 8707 `resource` to ask tokens for: the protected resource metadata's `resource`
   * verbatim, or the server URL as configured when the server has no such metadata.
   */
  resource: string;
  /** The protected resource metadata (RFC 9728), when the server publishes it. */
  resourceMetadata?: oauth.ResourceServer;
  /** The authorization server's metadata (RFC 8414 / OpenID discovery, or the 2025-03-26 fallback). */
  authorizationServer: oauth.AuthorizationServer;
  /**
   * `metadata` when the authorization server published its metadata; `fallback` for an old
   * (2025-03-26) server without any: `/authorize`, `/token` and `/register` at its origin.
   */
  source: 'metadata' | 'fallback';
}

const PRM_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * The server URL without its fragment, as the resource it is: an origin-only URL keeps no
 * trailing slash (`https://h`, not `https://h/`; some authorization servers compare verbatim).
 */
function canonicalServerUrl(serverUrl: URL): string {
  const url = new URL(serverUrl);
  url.hash = '';
  return url.pathname === '/' && url.search === '' ? url.origin : url.href;
}

/**
 * Whether the metadata's `resource` identifies this server: the same origin, and a path that is
 * the server URL's path or a parent of it on a segment boundary (`https://h/` covers `https://h/mcp`).
 */
function resourceMatches(resource: string, serverUrl: URL): boolean {
  let parsed: URL;
  try {
    parsed = new URL(resource);
  } catch {
    return false;
  }
  if (parsed.origin !== serverUrl.origin) return false;
  const base = parsed.pathname.replace(/\/+$/, '');
  const path = serverUrl.pathname.replace(/\/+$/, '');
  return base === '' || path === base || path.startsWith(`${base}/`);
}

/** The protected resource metadata URLs to try, in order (RFC 9728 and the MCP spec). */
function resourceMetadataUrls(serverUrl: URL, fromHeader: string | undefined): URL[] {
  const urls: URL[] = [];
  if (fromHeader !== undefined) {
    try {
      urls.push(new URL(fromHeader, serverUrl));
    } catch {
      // An unusable header URL: the well-known ones are still tried.
    }
  }
  const path = serverUrl.pathname.replace(/\/+$/, '');
  if (path !== '') urls.push(new URL(`${PRM_WELL_KNOWN}${path}`, serverUrl.origin));
  urls.push(new URL(PRM_WELL_KNOWN, serverUrl.origin));
  return urls;
}

/**
 * The authorization server metadata URLs to try for an issuer, in order: RFC 8414 with path
 * insertion, OpenID discovery with path insertion, OpenID discovery appended to the path.
 */
function authorizationServerMetadataUrls(issuer: URL): URL[] {
  const path = issuer.pathname.replace(/\/+$/, '');
  const origin = issuer.origin;
  if (path === '') {
    return [
      new URL('/.well-known/oauth-authorization-server', origin),
      new URL('/.well-known/openid-configuration', origin),
    ];
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, origin),
    new URL(`/.well-known/openid-configuration${path}`, origin),
    new URL(`${path}/.well-known/openid-configuration`, origin),
  ];
}

async function getJson(url: URL, fetchFn: OAuthFetch): Promise<Response> {
  checkOAuthUrl(url, 'OAuth metadata URL');
  return fetchFn(url.href, { method: 'GET', headers: { accept: 'application/json' } });
}

function failed(message: string, step: string, cause?: unknown): McpHostError {
  return new McpHostError('AUTH_FAILED', message, {
    details: { step },
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Finds the protected resource metadata of `serverUrl`: the challenge's `resource_metadata` URL,
 * then the path-aware, then the root well-known URL; the first 200 answer wins. Its `resource`
 * must identify the server (`resourceMatches`), else discovery stops: a token is never asked for
 * another resource. Undefined when every URL answered with an error status (an old server).
 */
export async function discoverResourceMetadata(
  serverUrl: URL,
  fromHeader: string | undefined,
  fetchFn: OAuthFetch,
): Promise<oauth.ResourceServer | undefined> {
  for (const url of resourceMetadataUrls(serverUrl, fromHeader)) {
    const response = await getJson(url, fetchFn);
    if (response.status !== 200) {
      await response.body?.cancel();
      continue;
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      throw failed(
        `protected resource metadata at ${url.href} is not JSON`,
        'resource-metadata',
        error,
      );
    }
    const resource = (body as { resource?: unknown } | null)?.resource;
    if (typeof resource !== 'string' || !resourceMatches(resource, serverUrl)) {
      throw failed(
        `protected resource metadata at ${url.href} names the resource ${JSON.stringify(String(resource))}, not ${canonicalServerUrl(serverUrl)}`,
        'resource-metadata',
      );
    }
    try {
      // oauth4webapi checks the document's shape and that `resource` is the URL it names.
      return await oauth.processResourceDiscoveryResponse(
        new URL(resource),
        Response.json(body, { status: 200 }),
      );
    } catch (error) {
      throw failed(
        `protected resource metadata at ${url.href} is not valid`,
        'resource-metadata',
        error,
      );
    }
  }
  return undefined;
}

/**
 * Fetches the metadata of the authorization server `issuer` from its well-known URLs (first 200
 * wins) and checks, with oauth4webapi, that its `issuer` is the one it was looked up for (with
 * `sameOriginIssuer`, any issuer on the same origin: only for a server's own legacy metadata).
 * Undefined when no URL has metadata.
 */
export async function discoverAuthorizationServer(
  issuer: string,
  fetchFn: OAuthFetch,
  options: { sameOriginIssuer?: boolean } = {},
): Promise<oauth.AuthorizationServer | undefined> {
  let issuerUrl: URL;
  try {
    issuerUrl = new URL(issuer);
  } catch (error) {
    throw failed(
      `authorization server ${JSON.stringify(issuer)} is not a URL`,
      'authorization-server-metadata',
      error,
    );
  }
  checkOAuthUrl(issuerUrl, 'authorization server');
  for (const url of authorizationServerMetadataUrls(issuerUrl)) {
    const response = await getJson(url, fetchFn);
    if (response.status !== 200) {
      await response.body?.cancel();
      continue;
    }
    let expected = issuerUrl;
    if (options.sameOriginIssuer === true) {
      const named = await namedIssuer(response);
      if (named !== undefined && named.origin === issuerUrl.origin) expected = named;
    }
    try {
      return await oauth.processDiscoveryResponse(expected, response);
    } catch (error) {
      throw failed(
        `authorization server metadata at ${url.href} is not valid for the issuer ${issuerUrl.href}`,
        'authorization-server-metadata',
        error,
      );
    }
  }
  return undefined;
}

/** The `issuer` a metadata response names, read from a clone (undefined when there is none). */
async function namedIssuer(response: Response): Promise<URL | undefined> {
  try {
    const body = (await response.clone().json()) as { issuer?: unknown } | null;
    return typeof body?.issuer === 'string' ? new URL(body.issuer) : undefined;
  } catch {
    return undefined;
  }
}

/** The 2025-03-26 default endpoints of an old server without metadata: at its origin. */
function fallbackAuthorizationServer(serverUrl: URL): oauth.AuthorizationServer {
  const origin = serverUrl.origin;
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
    // The 2025-03-26 revision made PKCE S256 mandatory; such servers had no metadata to say so.
    code_challenge_methods_supported: ['S256'],
  };
}

/** An issuer URL compared loosely: parsed, without a trailing slash. */
function issuerId(issuer: string): string {
  try {
    return new URL(issuer).href.replace(/\/+$/, '');
  } catch {
    return issuer;
  }
}

/**
 * The issuer to use of those the resource metadata lists: the configured one
 * (`authorizationServer`) when the list holds it (as the list spells it) or is empty, else the
 * first. A configured issuer the list does not hold is refused: the server does not trust it.
 */
function chooseIssuer(
  serverUrl: URL,
  listed: readonly string[],
  configured: string | undefined,
): string | undefined {
  if (configured === undefined) return listed[0];
  if (listed.length === 0) return configured;
  const match = listed.find((issuer) => issuerId(issuer) === issuerId(configured));
  if (match !== undefined) return match;
  throw new McpHostError(
    'AUTH_FAILED',
    `the protected resource metadata of ${serverUrl.origin} does not list the configured authorization server ${configured} (oauth.authorizationServer); it lists ${listed.join(', ')}`,
    {
      details: {
        step: 'resource-metadata',
        key: 'oauth.authorizationServer',
        authorizationServer: configured,
        listed: [...listed],
      },
    },
  );
}

/**
 * Discovery for one server, from its 401/403 challenge: the protected resource metadata, then the
 * authorization server it lists (`options.authorizationServer` when configured: see
 * `chooseIssuer`); for a server without protected resource metadata (2025-03-26), the configured
 * authorization server, else the one at the server's origin, else the fallback endpoints.
 */
export async function discoverOAuth(
  serverUrl: URL,
  resourceMetadataUrl: string | undefined,
  fetchFn: OAuthFetch,
  options: { authorizationServer?: string | undefined } = {},
): Promise<OAuthDiscovery> {
  const configured = options.authorizationServer;
  const resourceMetadata = await discoverResourceMetadata(serverUrl, resourceMetadataUrl, fetchFn);
  if (resourceMetadata !== undefined) {
    const issuer = chooseIssuer(
      serverUrl,
      resourceMetadata.authorization_servers ?? [],
      configured,
    );
    if (issuer === undefined) {
      throw failed(
        `protected resource metadata of ${serverUrl.origin} lists no authorization server`,
        'resource-metadata',
      );
    }
    const authorizationServer = await discoverAuthorizationServer(issuer, fetchFn);
    if (authorizationServer === undefined) {
      throw failed(
        `authorization server ${issuer} publishes no metadata`,
        'authorization-server-metadata',
      );
    }
    return {
      resource: resourceMetadata.resource,
      resourceMetadata,
      authorizationServer,
      source: 'metadata',
    };
  }
  const resource = canonicalServerUrl(serverUrl);
  if (configured !== undefined) {
    const authorizationServer = await discoverAuthorizationServer(configured, fetchFn);
    if (authorizationServer === undefined) {
      throw failed(
        `authorization server ${configured} (oauth.authorizationServer) publishes no metadata`,
        'authorization-server-metadata',
      );
    }
    return { resource, authorizationServer, source: 'metadata' };
  }
  // 2025-03-26: no resource metadata, so no issuer was named; the server's own origin serves the
  // metadata, and an issuer on that same origin (a path under it) is the server speaking for
  // itself. An issuer on another origin is still refused.
  const atOrigin = await discoverAuthorizationServer(serverUrl.origin, fetchFn, {
    sameOriginIssuer: true,
  });
  if (atOrigin !== undefined)
    return { resource, authorizationServer: atOrigin, source: 'metadata' };
  return {
    resource,
    authorizationServer: fallbackAuthorizationServer(serverUrl),
    source: 'fallback',
  };
}
