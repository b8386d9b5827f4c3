/**
 * OAuth 2.1 for remote MCP servers (Node only): discovery (RFC 9728, RFC 8414), client identity
 * (configured, Client ID Metadata Documents, dynamic registration), the authorization-code flow
 * with PKCE in two steps, client_credentials, step-up, and an `AuthProvider` for the HTTP
 * transports that does all of it.
 */
export {
  OAuthProvider,
  DEFAULT_OAUTH_PROVIDER_OPTIONS,
  type AuthorizationRequest,
  type OAuthProviderOptions,
} from './auth/oauth-provider.js';
export {
  OAuthFlow,
  DEFAULT_FLOW_TTL_MS,
  type AuthorizationStart,
  type OAuthFlowOptions,
  type TokenResponse,
} from './auth/oauth-flow.js';
export {
  discoverOAuth,
  discoverResourceMetadata,
  discoverAuthorizationServer,
  type OAuthDiscovery,
} from './auth/oauth-discovery.js';
export { parseWwwAuthenticate, type BearerChallenge } from './auth/www-authenticate.js';
export {
  resolveClient,
  registerClient,
  type ClientIdentityOptions,
  type ConfiguredClient,
} from './auth/client-identity.js';
export { loadPrivateKey, type PrivateKeyRef } from './auth/client-authentication.js';
export {
  DEFAULT_OAUTH_REQUEST_TIMEOUT_MS,
  type OAuthFetch,
  type OAuthHttpOptions,
} from './auth/oauth-http.js';
export type { ClientRegistration, OAuthTokens, TokenKey, TokenStore } from './auth/token-store.js';
