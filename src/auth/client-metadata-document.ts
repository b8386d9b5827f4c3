/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25): the
 * client id is an https URL, and the authorization server fetches the client's metadata from it.
 * `clientMetadataDocument()` builds the document a user hosts at their `clientMetadataUrl`;
 * `checkClientMetadataDocument()` fetches a hosted one (through the egress-guarded fetch) and lists,
 * as typed findings, every way an authorization server or mcp-host would refuse it.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import { applicationTypeFor } from './client-identity.js';
import { createEgressFetch, type EgressFetchOptions } from './egress-fetch.js';
import { isLocalUrl, isLoopbackHost } from './egress-policy.js';
import { isOAuthSafeUrl } from './oauth-http.js';

/** What mcp-host uses a metadata-document client for. */
export type ClientMetadataGrant = 'authorization_code' | 'client_credentials';

export interface ClientMetadataDocumentOptions {
  /** Where the document is hosted: also the client id. */
  clientMetadataUrl: string;
  /** The redirect URIs (default `http://127.0.0.1/callback`: any port, RFC 8252 section 7.3). */
  redirectUris?: readonly string[];
  /** Default `authorization_code`. */
  grant?: ClientMetadataGrant;
  /** `client_name` (default `mcp-host`). */
  clientName?: string;
  /** `client_uri`, a page about the client, shown by some consent screens. */
  clientUri?: string;
  /** For `client_credentials` (`private_key_jwt`): where the client's public keys are. */
  jwksUri?: string;
}

/** The document (RFC 7591 client metadata, `client_id` the URL it is hosted at). */
export interface ClientMetadataDocument {
  client_id: string;
  client_name: string;
  client_uri?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
  application_type?: 'native' | 'web';
  jwks_uri?: string;
}

/** The redirect URI mcp-host's own login uses (the loopback listener, any port). */
export const DEFAULT_CLIENT_METADATA_REDIRECT_URI = 'http://127.0.0.1/callback';

/** The largest document checked (authorization servers are advised to cap them at 5 KB). */
export const MAX_CLIENT_METADATA_DOCUMENT_BYTES = 5 * 1024;

/** One way a hosted document would be refused. */
export interface ClientMetadataFinding {
  code:
    | 'unreachable'
    | 'http-status'
    | 'too-large'
    | 'content-type'
    | 'not-json'
    | 'client-id-mismatch'
    | 'url-not-https'
    | 'url-invalid'
    | 'missing-redirect-uris'
    | 'unsafe-redirect-uri'
    | 'redirect-uri-not-listed'
    | 'auth-method'
    | 'grant-type'
    | 'has-secret'
    | 'missing-client-name';
  /** The document field concerned, when there is one. */
  field?: string;
  message: string;
}

export interface CheckClientMetadataOptions {
  /** The grant mcp-host will use with it (default `authorization_code`). */
  grant?: ClientMetadataGrant;
  /** The redirect URI mcp-host will send (default `http://127.0.0.1/callback`). */
  redirectUri?: string;
  /** The egress policy of the fetch (a loopback URL is allowed to reach loopback). */
  egress?: EgressFetchOptions;
  signal?: AbortSignal;
}

export interface ClientMetadataCheck {
  url: string;
  /** The document, when one could be read as a JSON object. */
  document?: Record<string, unknown>;
  /** Empty when nothing would be refused. */
  findings: ClientMetadataFinding[];
}

/** Why `url` cannot be a client id (https with a path, no fragment, no user info), or undefined. */
function urlFindings(url: string): ClientMetadataFinding[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [{ code: 'url-invalid', message: `'${url}' is not a URL` }];
  }
  const findings: ClientMetadataFinding[] = [];
  // http only on loopback, where tests host documents.
  if (!isOAuthSafeUrl(parsed))
    findings.push({
      code: 'url-not-https',
      message: `the client id URL must be https (it is ${parsed.protocol})`,
    });
  if (parsed.pathname === '/' || parsed.hash !== '' || parsed.username !== '')
    findings.push({
      code: 'url-invalid',
      message: 'the client id URL needs a path, and no fragment or user info',
    });
  return findings;
}

function isLoopbackHttp(uri: URL): boolean {
  return uri.protocol === 'http:' && isLoopbackHost(uri.hostname);
}

/** The document to host at `options.clientMetadataUrl` (`INVALID_ARGUMENT` for a bad URL). */
export function clientMetadataDocument(
  options: ClientMetadataDocumentOptions,
): ClientMetadataDocument {
  const bad = urlFindings(options.clientMetadataUrl);
  if (bad.length > 0)
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `clientMetadataUrl cannot be a client id: ${bad.map((finding) => finding.message).join('; ')}`,
    );
  const grant = options.grant ?? 'authorization_code';
  const redirectUris = [...(options.redirectUris ?? [DEFAULT_CLIENT_METADATA_REDIRECT_URI])];
  return {
    client_id: options.clientMetadataUrl,
    client_name: options.clientName ?? 'mcp-host',
    ...(options.clientUri === undefined ? {} : { client_uri: options.clientUri }),
    redirect_uris: grant === 'authorization_code' ? redirectUris : [],
    grant_types:
      grant === 'authorization_code'
        ? ['authorization_code', 'refresh_token']
        : ['client_credentials'],
    response_types: grant === 'authorization_code' ? ['code'] : [],
    token_endpoint_auth_method: grant === 'authorization_code' ? 'none' : 'private_key_jwt',
    ...(grant === 'authorization_code'
      ? { application_type: applicationTypeFor(redirectUris) }
      : {}),
    ...(options.jwksUri === undefined ? {} : { jwks_uri: options.jwksUri }),
  };
}

/** A redirect URI an authorization server would refuse, or one that leaks the code. */
function unsafeRedirect(uri: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return 'is not a URL';
  }
  if (parsed.hash !== '') return 'has a fragment';
  if (isOAuthSafeUrl(parsed)) return undefined;
  if (parsed.protocol === 'http:') return 'is plain http off loopback';
  if (['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:'].includes(parsed.protocol))
    return `uses the ${parsed.protocol} scheme`;
  return undefined;
}

/** The same redirect URI, the port ignored on loopback (RFC 8252 section 7.3). */
function sameRedirect(listed: string, sent: string): boolean {
  try {
    const a = new URL(listed);
    const b = new URL(sent);
    if (isLoopbackHttp(a) && isLoopbackHttp(b)) {
      a.port = '';
      b.port = '';
    }
    return a.href === b.href;
  } catch {
    return false;
  }
}

/** Every finding about a parsed document (see `checkClientMetadataDocument`). */
export function clientMetadataFindings(
  url: string,
  document: Record<string, unknown>,
  options: Pick<CheckClientMetadataOptions, 'grant' | 'redirectUri'> = {},
): ClientMetadataFinding[] {
  const findings: ClientMetadataFinding[] = [];
  const grant = options.grant ?? 'authorization_code';
  if (document.client_id !== url)
    findings.push({
      code: 'client-id-mismatch',
      field: 'client_id',
      message: `client_id must be exactly the URL the document is at (${url})`,
    });
  if (typeof document.client_name !== 'string' || document.client_name === '')
    findings.push({
      code: 'missing-client-name',
      field: 'client_name',
      message: 'client_name is missing (consent screens show it)',
    });
  for (const field of ['client_secret', 'client_secret_expires_at'])
    if (field in document)
      findings.push({
        code: 'has-secret',
        field,
        message: `${field} must not be in a public document`,
      });
  const method = document.token_endpoint_auth_method ?? 'client_secret_basic';
  const expected = grant === 'authorization_code' ? 'none' : 'private_key_jwt';
  if (method !== expected)
    findings.push({
      code: 'auth-method',
      field: 'token_endpoint_auth_method',
      message: `token_endpoint_auth_method must be '${expected}' for ${grant} (it is ${JSON.stringify(method)}${document.token_endpoint_auth_method === undefined ? ', the default' : ''})`,
    });
  const grantTypes = document.grant_types ?? ['authorization_code'];
  if (!Array.isArray(grantTypes) || !grantTypes.includes(grant))
    findings.push({
      code: 'grant-type',
      field: 'grant_types',
      message: `grant_types must include ${grant}`,
    });
  if (grant !== 'authorization_code') {
    if (document.jwks_uri === undefined && document.jwks === undefined)
      findings.push({
        code: 'auth-method',
        field: 'jwks_uri',
        message: 'private_key_jwt needs the public keys (jwks_uri or jwks)',
      });
    return findings;
  }
  const redirects = document.redirect_uris;
  if (
    !Array.isArray(redirects) ||
    redirects.length === 0 ||
    !redirects.every((uri) => typeof uri === 'string')
  ) {
    findings.push({
      code: 'missing-redirect-uris',
      field: 'redirect_uris',
      message: 'redirect_uris must be a non-empty list of URLs',
    });
    return findings;
  }
  for (const uri of redirects) {
    const why = unsafeRedirect(uri);
    if (why !== undefined)
      findings.push({
        code: 'unsafe-redirect-uri',
        field: 'redirect_uris',
        message: `redirect URI '${uri}' ${why}`,
      });
  }
  const sent = options.redirectUri ?? DEFAULT_CLIENT_METADATA_REDIRECT_URI;
  if (!redirects.some((uri) => sameRedirect(uri, sent)))
    findings.push({
      code: 'redirect-uri-not-listed',
      field: 'redirect_uris',
      message: `redirect_uris does not list '${sent}', the redirect URI the login sends`,
    });
  return findings;
}

/**
 * Fetches the document hosted at `url` (egress-guarded, at most 5 KB, under a deadline) and lists
 * every way it would be refused: unreachable or not 200, too big, not `application/json`, not JSON,
 * `client_id` not the URL, a URL that is not https (http on loopback is allowed, for tests),
 * missing or unsafe `redirect_uris` or none matching the login's, a `token_endpoint_auth_method`
 * or `grant_types` that does not fit `grant`, a secret in it. Never throws for what it finds.
 */
export async function checkClientMetadataDocument(
  url: string,
  options: CheckClientMetadataOptions = {},
): Promise<ClientMetadataCheck> {
  const findings = urlFindings(url);
  if (!URL.canParse(url)) return { url, findings };
  const fetch = createEgressFetch({
    serverIsLocal: isLocalUrl(url),
    maxResponseBytes: MAX_CLIENT_METADATA_DOCUMENT_BYTES,
    ...options.egress,
  });
  let text: string;
  try {
    const response = await fetch(url, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    text = await response.text();
    if (response.status !== 200) {
      findings.push({
        code: 'http-status',
        message: `the document URL answered HTTP ${response.status}, not 200`,
      });
      return { url, findings };
    }
    const type = response.headers.get('content-type') ?? '';
    if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type))
      findings.push({
        code: 'content-type',
        message: `the document is served as '${type || 'no content type'}', not application/json`,
      });
  } catch (error) {
    const code = error instanceof McpHostError ? error.code : undefined;
    findings.push(
      code === 'MESSAGE_TOO_LARGE'
        ? {
            code: 'too-large',
            message: `the document is over ${MAX_CLIENT_METADATA_DOCUMENT_BYTES} bytes`,
          }
        : {
            code: 'unreachable',
            message: `the document could not be fetched: ${error instanceof Error ? error.message : String(error)}`,
          },
    );
    return { url, findings };
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    findings.push({ code: 'not-json', message: 'the document is not JSON' });
    return { url, findings };
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    findings.push({ code: 'not-json', message: 'the document is not a JSON object' });
    return { url, findings };
  }
  const record = document as Record<string, unknown>;
  findings.push(...clientMetadataFindings(url, record, options));
  return { url, document: record, findings };
}
