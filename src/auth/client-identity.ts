import * as oauth from 'oauth4webapi';
import { McpHostError } from '../errors/mcp-host-error.js';
import { addSecret } from '../errors/redact.js';
import type { PrivateKeyRef } from './client-authentication.js';
import { isLoopbackHost } from './egress-policy.js';
import { requestOptions, type OAuthFetch } from './oauth-http.js';
import type { ClientRegistration, TokenStore } from './token-store.js';

/** A client the user registered with the authorization server beforehand. Never deleted. */
export interface ConfiguredClient {
  clientId: string;
  clientSecret?: string;
  /** For `private_key_jwt`. */
  privateKey?: PrivateKeyRef;
  /** The token endpoint authentication method, when the metadata alone does not settle it. */
  tokenEndpointAuthMethod?: string;
  /** The issuer this client belongs to; unset: any authorization server the server names. */
  issuer?: string;
}

/** How mcp-host gets a client at an authorization server (see `resolveClient`). */
export interface ClientIdentityOptions {
  client?: ConfiguredClient;
  /** A Client ID Metadata Document URL (https), used as the client id where it is supported. */
  clientMetadataUrl?: string;
  /** `client_name` for dynamic registration (default `mcp-host`). */
  clientName?: string;
  /** The redirect URIs to register (the interactive flow's). */
  redirectUris: string[];
  /** The grants to register (default authorization_code and refresh_token). */
  grantTypes?: string[];
}

/**
 * RFC 7591 `application_type`: `native` when every redirect URI is a loopback http URL or a
 * private-use scheme (an app on the user's machine), else `web`.
 */
export function applicationTypeFor(redirectUris: readonly string[]): 'native' | 'web' {
  const native = redirectUris.every((uri) => {
    try {
      const url = new URL(uri);
      if (url.protocol === 'http:') return isLoopbackHost(url.hostname);
      return url.protocol !== 'https:';
    } catch {
      return false;
    }
  });
  return native && redirectUris.length > 0 ? 'native' : 'web';
}

/**
 * The client to use at `as`, in this order: the configured client (unless it is bound to another
 * issuer), the Client ID Metadata Document URL (when `as` advertises
 * `client_id_metadata_document_supported`), the dynamic registration kept for this issuer, a new
 * dynamic registration (RFC 7591, kept in `store` under the issuer). Registrations are per issuer,
 * so a server that moved to another authorization server gets a new one there.
 */
export async function resolveClient(
  as: oauth.AuthorizationServer,
  options: ClientIdentityOptions,
  store: TokenStore,
  fetchFn: OAuthFetch,
): Promise<ClientRegistration> {
  const configured = options.client;
  if (
    configured !== undefined &&
    (configured.issuer === undefined || configured.issuer === as.issuer)
  ) {
    if (configured.clientSecret !== undefined) addSecret(configured.clientSecret);
    return {
      issuer: as.issuer,
      clientId: configured.clientId,
      ...(configured.clientSecret === undefined ? {} : { clientSecret: configured.clientSecret }),
      ...(configured.tokenEndpointAuthMethod === undefined
        ? {}
        : { tokenEndpointAuthMethod: configured.tokenEndpointAuthMethod }),
      source: 'configured',
      redirectUris: options.redirectUris,
    };
  }
  if (
    options.clientMetadataUrl !== undefined &&
    as.client_id_metadata_document_supported === true
  ) {
    return {
      issuer: as.issuer,
      clientId: options.clientMetadataUrl,
      source: 'metadata-document',
      tokenEndpointAuthMethod: 'none',
      redirectUris: options.redirectUris,
    };
  }
  const kept = await store.loadRegistration(as.issuer);
  if (kept !== undefined && kept.issuer === as.issuer && kept.source === 'dynamic') {
    const expired =
      kept.clientSecretExpiresAt !== undefined &&
      kept.clientSecretExpiresAt !== 0 &&
      kept.clientSecretExpiresAt <= Date.now();
    if (!expired) {
      if (kept.clientSecret !== undefined) addSecret(kept.clientSecret);
      return kept;
    }
  }
  return registerClient(as, options, store, fetchFn);
}

/**
 * RFC 7591 makes `client_secret_expires_at` required with a secret, and oauth4webapi insists;
 * servers often leave it out. Its absence is read as 0 ("never expires") and the rest is
 * validated by oauth4webapi as usual.
 */
async function withSecretExpiry(response: Response): Promise<Response> {
  if (response.status !== 201 && response.status !== 200) return response;
  let body: unknown;
  try {
    body = await response.clone().json();
  } catch {
    return response;
  }
  if (
    typeof body !== 'object' ||
    body === null ||
    !('client_secret' in body) ||
    'client_secret_expires_at' in body
  ) {
    return response;
  }
  await response.body?.cancel();
  return Response.json(
    { ...body, client_secret_expires_at: 0 },
    {
      status: response.status,
      headers: response.headers,
    },
  );
}

/** RFC 8628's grant type. */
const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * A client registered for a person's login may log in with the device grant too (`auth login
 * --device`) where `as` offers it: its grant type is added to `authorization_code`.
 */
function withDeviceGrant(as: oauth.AuthorizationServer, grantTypes: string[]): string[] {
  const offered =
    typeof as.device_authorization_endpoint === 'string' &&
    (as.grant_types_supported === undefined ||
      as.grant_types_supported.includes(DEVICE_CODE_GRANT_TYPE));
  return offered &&
    grantTypes.includes('authorization_code') &&
    !grantTypes.includes(DEVICE_CODE_GRANT_TYPE)
    ? [...grantTypes, DEVICE_CODE_GRANT_TYPE]
    : grantTypes;
}

/** RFC 7591 dynamic registration at `as`; the result is saved in `store` under the issuer. */
export async function registerClient(
  as: oauth.AuthorizationServer,
  options: ClientIdentityOptions,
  store: TokenStore,
  fetchFn: OAuthFetch,
): Promise<ClientRegistration> {
  if (as.registration_endpoint === undefined) {
    throw new McpHostError(
      'AUTH_FAILED',
      `authorization server ${as.issuer} offers no dynamic client registration: configure a client id for it`,
      { details: { step: 'client-registration' } },
    );
  }
  const supported = as.token_endpoint_auth_methods_supported;
  const method =
    supported === undefined || supported.includes('none')
      ? 'none'
      : supported.includes('client_secret_basic')
        ? 'client_secret_basic'
        : 'client_secret_post';
  const grantTypes = withDeviceGrant(
    as,
    options.grantTypes ?? ['authorization_code', 'refresh_token'],
  );
  let registered: oauth.OmitSymbolProperties<oauth.Client>;
  try {
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: options.clientName ?? 'mcp-host',
        redirect_uris: options.redirectUris,
        grant_types: grantTypes,
        response_types: ['code'],
        token_endpoint_auth_method: method,
        application_type: applicationTypeFor(options.redirectUris),
      },
      requestOptions(as.registration_endpoint, fetchFn),
    );
    registered = await oauth.processDynamicClientRegistrationResponse(
      await withSecretExpiry(response),
    );
  } catch (error) {
    throw authError(error, 'client-registration', `client registration at ${as.issuer} failed`);
  }
  const secret =
    typeof registered.client_secret === 'string' ? registered.client_secret : undefined;
  if (secret !== undefined) addSecret(secret);
  const expiresAt = registered.client_secret_expires_at;
  const registration: ClientRegistration = {
    issuer: as.issuer,
    clientId: registered.client_id,
    ...(secret === undefined ? {} : { clientSecret: secret }),
    ...(typeof expiresAt === 'number' && expiresAt > 0
      ? { clientSecretExpiresAt: expiresAt * 1000 }
      : {}),
    source: 'dynamic',
    tokenEndpointAuthMethod:
      typeof registered.token_endpoint_auth_method === 'string'
        ? registered.token_endpoint_auth_method
        : secret === undefined
          ? 'none'
          : method === 'none'
            ? 'client_secret_basic'
            : method,
    redirectUris: options.redirectUris,
  };
  await store.saveRegistration(registration);
  return registration;
}

/**
 * An OAuth failure as a typed error: the authorization server's OAuth error code when it sent one
 * (`details.error`), the step, never a body, token or secret.
 */
export function authError(error: unknown, step: string, message: string): McpHostError {
  if (error instanceof McpHostError) return error;
  if (error instanceof oauth.ResponseBodyError) {
    return new McpHostError('AUTH_FAILED', `${message}: ${error.error} (HTTP ${error.status})`, {
      details: { step, error: error.error, status: error.status },
    });
  }
  if (error instanceof oauth.AuthorizationResponseError) {
    return new McpHostError('AUTH_FAILED', `${message}: ${error.error}`, {
      details: { step, error: error.error },
    });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new McpHostError('AUTH_FAILED', `${message}: ${reason}`, { details: { step } });
}

/** Runs `work`, naming `serverName` in a typed error that names no server. */
export async function named<T>(serverName: string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (
      !(error instanceof McpHostError) ||
      error.serverName !== undefined ||
      serverName === undefined
    )
      throw error;
    throw new McpHostError(error.code, error.message, {
      serverName,
      cause: error.cause,
      ...(error.details === undefined ? {} : { details: error.details }),
    });
  }
}
