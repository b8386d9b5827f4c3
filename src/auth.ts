/**
 * OAuth 2.1 for remote MCP servers (Node only): discovery (RFC 9728, RFC 8414), client identity
 * (configured, Client ID Metadata Documents, dynamic registration), the authorization-code flow
 * with PKCE in two steps, client_credentials, the JWT-bearer grant and token exchange (workload
 * identity, enterprise-managed authorization), the device authorization grant, DPoP-bound tokens,
 * step-up, an `AuthProvider` for the HTTP transports
 * that does all of it; tokens kept in the state store and refreshed once across processes; egress
 * safety of every OAuth request, the loopback redirect listener and opening the browser without a
 * shell.
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
  DeviceFlow,
  DEFAULT_DEVICE_POLL_INTERVAL_MS,
  DEVICE_SLOW_DOWN_STEP_MS,
  type DeviceAuthorization,
  type DeviceFlowOptions,
} from './auth/device-flow.js';
export {
  discoverOAuth,
  discoverResourceMetadata,
  discoverAuthorizationServer,
  type OAuthDiscovery,
} from './auth/oauth-discovery.js';
export {
  exchangeToken,
  idJagAssertion,
  JWT_BEARER_GRANT_TYPE,
  TOKEN_EXCHANGE_GRANT_TYPE,
  TOKEN_TYPES,
  type AssertionRequest,
  type AssertionSource,
  type ExchangedToken,
  type IdJagAssertionOptions,
  type TokenExchangeOptions,
} from './auth/oauth-grants.js';
export { parseWwwAuthenticate, type BearerChallenge } from './auth/www-authenticate.js';
export {
  resolveClient,
  registerClient,
  type ClientIdentityOptions,
  type ConfiguredClient,
} from './auth/client-identity.js';
export {
  clientMetadataDocument,
  checkClientMetadataDocument,
  clientMetadataFindings,
  DEFAULT_CLIENT_METADATA_REDIRECT_URI,
  MAX_CLIENT_METADATA_DOCUMENT_BYTES,
  type CheckClientMetadataOptions,
  type ClientMetadataCheck,
  type ClientMetadataDocument,
  type ClientMetadataDocumentOptions,
  type ClientMetadataFinding,
  type ClientMetadataGrant,
} from './auth/client-metadata-document.js';
export { loadPrivateKey, type PrivateKeyRef } from './auth/client-authentication.js';
export {
  DEFAULT_OAUTH_REQUEST_TIMEOUT_MS,
  type OAuthFetch,
  type OAuthHttpOptions,
} from './auth/oauth-http.js';
export type {
  ClientRegistration,
  DpopKey,
  OAuthTokens,
  TokenKey,
  TokenStore,
} from './auth/token-store.js';
export {
  createEgressFetch,
  DEFAULT_EGRESS_FETCH_OPTIONS,
  type EgressFetch,
  type EgressFetchOptions,
  type EgressLookup,
  type LookupAddress,
} from './auth/egress-fetch.js';
export { isLocalUrl, type EgressPolicyOptions } from './auth/egress-policy.js';
export {
  startLoopbackListener,
  DEFAULT_LOOPBACK_LISTENER_OPTIONS,
  type LoopbackListener,
  type LoopbackListenerOptions,
} from './auth/loopback-listener.js';
export {
  openBrowser,
  checkBrowserUrl,
  browserCommand,
  DEFAULT_OPEN_BROWSER_WAIT_MS,
  type OpenBrowserOptions,
  type OpenBrowserResult,
} from './auth/open-browser.js';
export { FileTokenStore, type FileTokenStoreOptions } from './auth/file-token-store.js';
export {
  RefreshCoordinator,
  refreshCoordinatorDefaults,
  type RefreshCoordinatorOptions,
  type RefreshCallOptions,
  type RefreshTokensFunction,
  type RefreshableTokens,
} from './auth/refresh-coordinator.js';
export { classifyRefreshFailure, type RefreshFailure } from './auth/refresh-failure.js';
