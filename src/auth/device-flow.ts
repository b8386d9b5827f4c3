import * as oauth from 'oauth4webapi';
import { McpHostError } from '../errors/mcp-host-error.js';
import { addSecret } from '../errors/redact.js';
import { abortableDelay } from '../internal/signals.js';
import { authError } from './client-identity.js';
import { withDpopNonceRetry, type DpopProof } from './dpop-proof.js';
import type { TokenResponse } from './oauth-flow.js';
import { requestOptions, type OAuthFetch } from './oauth-http.js';

/** What the user must do to approve a device login (RFC 8628 section 3.3). */
export interface DeviceAuthorization {
  /** Where the user goes (on any device) to enter the code. */
  verificationUri: string;
  /** The same page with the code filled in, when the server offers it (for a QR code or a link). */
  verificationUriComplete?: string;
  /** The code the user enters there. */
  userCode: string;
  /** Milliseconds since the epoch after which the code is dead. */
  expiresAt: number;
}

export interface DeviceFlowOptions {
  authorizationServer: oauth.AuthorizationServer;
  clientId: string;
  clientAuth: oauth.ClientAuth;
  /** The RFC 8707 resource, sent in the device authorization and token requests. */
  resource: string;
  scopes?: readonly string[];
  fetch: OAuthFetch;
  dpop?: DpopProof;
  /** The clock (ms since the epoch) the code's expiry is judged by (default `Date.now`). */
  now?: () => number;
  /**
   * Waits `ms` between polls (default a timer); must end early when `signal` aborts. Tests pass
   * one that returns at once.
   */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

/** RFC 8628 section 3.5: the polling interval when the server names none, and the slow_down step. */
export const DEFAULT_DEVICE_POLL_INTERVAL_MS = 5_000;
export const DEVICE_SLOW_DOWN_STEP_MS = 5_000;

/** True when the authorization server offers the device authorization grant. */
function supportsDeviceFlow(as: oauth.AuthorizationServer): boolean {
  return typeof as.device_authorization_endpoint === 'string';
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function cancelled(signal: AbortSignal | undefined): McpHostError {
  return new McpHostError('ABORTED', 'the device login was cancelled', {
    cause: signal?.reason,
    details: { step: 'device-poll' },
  });
}

/** Waits `ms`, or rejects with `ABORTED` as soon as `signal` aborts; the timer never outlives it. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return abortableDelay(ms, signal, () => cancelled(signal));
}

/**
 * One device authorization grant (RFC 8628), for hosts without a browser: `start()` asks for a
 * user code and says where the user enters it; `poll()` then asks the token endpoint every
 * `interval` (5 s when the server names none, 5 s more after each `slow_down`) until the user
 * approves (tokens), denies (`AUTH_FAILED` `access_denied`), the code expires (`AUTH_FAILED`
 * `expired_token`, also when `expiresAt` passes) or `signal` aborts (`ABORTED`).
 */
export class DeviceFlow {
  readonly #options: DeviceFlowOptions;
  #started:
    { authorization: DeviceAuthorization; deviceCode: string; intervalMs: number } | undefined;
  #polling = false;

  constructor(options: DeviceFlowOptions) {
    if (!supportsDeviceFlow(options.authorizationServer)) {
      throw new McpHostError(
        'AUTH_FAILED',
        `authorization server ${options.authorizationServer.issuer} does not offer the device authorization grant`,
        { details: { step: 'device-authorization' } },
      );
    }
    this.#options = options;
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  /** The scopes this flow asks for. */
  get scopes(): readonly string[] {
    return this.#options.scopes ?? [];
  }

  /** Asks for a user code (same answer when called again). */
  async start(signal?: AbortSignal): Promise<DeviceAuthorization> {
    if (this.#started !== undefined) return this.#started.authorization;
    const as = this.#options.authorizationServer;
    const client: oauth.Client = { client_id: this.#options.clientId };
    const parameters: Record<string, string> = { resource: this.#options.resource };
    const scopes = this.#options.scopes ?? [];
    if (scopes.length > 0) parameters.scope = scopes.join(' ');
    let answer: oauth.DeviceAuthorizationResponse;
    try {
      const response = await oauth.deviceAuthorizationRequest(
        as,
        client,
        this.#options.clientAuth,
        parameters,
        {
          ...requestOptions(as.device_authorization_endpoint as string, this.#options.fetch),
          ...(signal === undefined ? {} : { signal }),
        },
      );
      answer = await oauth.processDeviceAuthorizationResponse(as, client, response);
    } catch (error) {
      throw authError(
        error,
        'device-authorization',
        `the device authorization at ${as.issuer} failed`,
      );
    }
    addSecret(answer.device_code);
    const authorization: DeviceAuthorization = {
      verificationUri: answer.verification_uri,
      ...(answer.verification_uri_complete === undefined
        ? {}
        : { verificationUriComplete: answer.verification_uri_complete }),
      userCode: answer.user_code,
      expiresAt: this.#now() + answer.expires_in * 1000,
    };
    this.#started = {
      authorization,
      deviceCode: answer.device_code,
      intervalMs:
        answer.interval === undefined ? DEFAULT_DEVICE_POLL_INTERVAL_MS : answer.interval * 1000,
    };
    return authorization;
  }

  /** Polls the token endpoint until the login ends (see the class); once per flow. */
  async poll(signal?: AbortSignal): Promise<TokenResponse> {
    const started = this.#started;
    if (started === undefined) {
      throw new McpHostError(
        'INVALID_ARGUMENT',
        'poll() before start(): no device login to wait for',
      );
    }
    if (this.#polling) {
      throw new McpHostError('INVALID_ARGUMENT', 'this device login is being waited for already');
    }
    this.#polling = true;
    const as = this.#options.authorizationServer;
    const client: oauth.Client = { client_id: this.#options.clientId };
    const dpop = this.#options.dpop;
    let intervalMs = started.intervalMs;
    for (;;) {
      await (this.#options.sleep ?? pause)(intervalMs, signal);
      if (isAborted(signal)) throw cancelled(signal);
      if (this.#now() >= started.authorization.expiresAt) {
        throw new McpHostError(
          'AUTH_FAILED',
          'the device code expired before the user approved it',
          {
            details: { step: 'device-poll', error: 'expired_token' },
          },
        );
      }
      try {
        return await withDpopNonceRetry(dpop, async () => {
          const response = await oauth.deviceCodeGrantRequest(
            as,
            client,
            this.#options.clientAuth,
            started.deviceCode,
            {
              additionalParameters: { resource: this.#options.resource },
              ...requestOptions(as.token_endpoint as string, this.#options.fetch),
              ...(signal === undefined ? {} : { signal }),
              ...(dpop === undefined ? {} : { DPoP: dpop.handle }),
            },
          );
          return oauth.processDeviceCodeResponse(as, client, response);
        });
      } catch (error) {
        if (error instanceof oauth.ResponseBodyError) {
          if (error.error === 'authorization_pending') continue;
          if (error.error === 'slow_down') {
            intervalMs += DEVICE_SLOW_DOWN_STEP_MS;
            continue;
          }
        }
        if (isAborted(signal)) throw cancelled(signal);
        throw authError(error, 'device-poll', `the device login at ${as.issuer} failed`);
      }
    }
  }
}
