/**
 * The little of `oidc-provider` (which ships no types) that the test helpers use. Widen it here
 * when a helper needs more.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface OidcContext {
    oidc?: { params?: Record<string, unknown> };
  }

  /** A device code (RFC 8628) as its model: what the device pages set when the user decides. */
  interface DeviceCodeModel extends Saveable {
    accountId?: string;
    grantId?: string;
    authTime?: number;
    resource?: string;
    scope?: string;
    error?: string;
    errorDescription?: string;
  }

  interface Saveable {
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    on(event: string, listener: (ctx: OidcContext, ...rest: unknown[]) => void): this;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    /** Adds a koa middleware in front of the provider's routes. */
    use(
      middleware: (
        ctx: { path: string; req: IncomingMessage; res: ServerResponse; respond?: boolean },
        next: () => Promise<void>,
      ) => Promise<void>,
    ): void;
    Client: { find(id: string): Promise<object | undefined> };
    Grant: new (properties: { accountId: string; clientId: string }) => Saveable & {
      addOIDCScope(scope: string): void;
      addResourceScope(resource: string, scope: string): void;
    };
    DeviceCode: { findByUserCode(userCode: string): Promise<DeviceCodeModel | undefined> };
    RefreshToken: (new (properties: Record<string, unknown>) => Saveable) & {
      find(value: string): Promise<{ destroy(): Promise<void> } | undefined>;
    };
    AccessToken: {
      find(value: string): Promise<
        | {
            accountId: string;
            aud?: unknown;
            scope?: string;
            /** The thumbprint of the DPoP key the token is bound to. */
            jkt?: string;
            isExpired: boolean;
            destroy(): Promise<void>;
          }
        | undefined
      >;
    };
    interactionDetails(
      req: IncomingMessage,
      res: ServerResponse,
    ): Promise<{ uid: string; params: Record<string, unknown> }>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }
}
