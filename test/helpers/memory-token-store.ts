/**
 * An in-memory `TokenStore` for tests and the conformance client: a Map per kind, with a log of
 * every call so a test can assert what was saved, cleared or kept.
 */
import type {
  ClientRegistration,
  OAuthTokens,
  TokenKey,
  TokenStore,
} from '../../src/auth/token-store.js';

function keyOf(key: TokenKey): string {
  return JSON.stringify([key.issuer, key.clientId, key.resource]);
}

export class MemoryTokenStore implements TokenStore {
  readonly tokens = new Map<string, OAuthTokens>();
  readonly registrations = new Map<string, ClientRegistration>();
  readonly calls: string[] = [];
  /** MCP server URL -> the token key its tokens are under. */
  readonly index = new Map<string, TokenKey>();

  loadTokens(key: TokenKey): Promise<OAuthTokens | undefined> {
    this.calls.push('loadTokens');
    return Promise.resolve(this.tokens.get(keyOf(key)));
  }
  saveTokens(key: TokenKey, tokens: OAuthTokens): Promise<void> {
    this.calls.push('saveTokens');
    this.tokens.set(keyOf(key), { ...tokens });
    return Promise.resolve();
  }
  clearTokens(key: TokenKey): Promise<void> {
    this.calls.push('clearTokens');
    this.tokens.delete(keyOf(key));
    return Promise.resolve();
  }
  loadRegistration(issuer: string): Promise<ClientRegistration | undefined> {
    this.calls.push('loadRegistration');
    return Promise.resolve(this.registrations.get(issuer));
  }
  saveRegistration(registration: ClientRegistration): Promise<void> {
    this.calls.push('saveRegistration');
    this.registrations.set(registration.issuer, { ...registration });
    return Promise.resolve();
  }
  clearRegistration(issuer: string): Promise<void> {
    this.calls.push('clearRegistration');
    this.registrations.delete(issuer);
    return Promise.resolve();
  }
  findTokenKey(serverUrl: string): Promise<TokenKey | undefined> {
    this.calls.push('findTokenKey');
    const key = this.index.get(serverUrl);
    return Promise.resolve(key === undefined ? undefined : { ...key });
  }
  indexTokenKey(serverUrl: string, key: TokenKey): Promise<void> {
    this.calls.push('indexTokenKey');
    this.index.set(serverUrl, { ...key });
    return Promise.resolve();
  }
}
