import { randomUUID } from 'node:crypto';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { toMcpHostError } from '../../errors/to-mcp-host-error.js';
import type { McpHost } from '../../host/mcp-host.js';
import type { Disposable } from '../../internal/disposable.js';
import { Emitter } from '../../internal/emitter.js';

/** The path of the gateway's OAuth callback on its HTTP listener. */
export const OAUTH_CALLBACK_PATH = '/oauth/callback';

/** At most this many logins wait for their callback at once (a new one beyond is refused). */
const MAX_PENDING_LOGINS = 64;

/** A login a client was sent to: the URL to open, and the end of it. */
export interface UpstreamLogin {
  /** The URL-mode elicitation's id (one per login; a second call waiting on it gets the same). */
  readonly elicitationId: string;
  /** The authorization URL to open. */
  readonly url: string;
  /** Resolves once the callback came and the server is connected with the new login. */
  readonly done: Promise<void>;
}

interface Pending extends UpstreamLogin {
  readonly key: string;
  readonly host: McpHost;
  readonly server: string;
  readonly settle: (error?: unknown) => void;
  readonly timer: NodeJS.Timeout;
}

/** What the callback answers the browser. */
export interface CallbackAnswer {
  status: number;
  message: string;
}

/**
 * The upstream logins the gateway runs for its named clients (issue 17: a login shown to the
 * client as a URL elicitation). A login is an OAuth authorization-code flow with PKCE of a
 * client's own host (`McpHost.startAuthorization`), whose redirect URI is the gateway's callback
 * (`/oauth/callback` on its HTTP listener); the callback is matched to its login by the flow's
 * single-use `state`, finishes it (`completeAuthorization`: the tokens go to that client's token
 * store) and fires `onComplete` with the elicitation's id. One login per (client, server) at a
 * time; each waits until its flow expires at most. Nothing of a code, a token or a verifier is
 * logged or put in an error.
 */
export class UpstreamLogins {
  readonly #pending = new Map<string, Pending>();
  readonly #byState = new Map<string, Pending>();
  readonly #completed = new Emitter<string>();
  #redirectUri: string | undefined;
  #closed = false;

  /** Fires with a login's elicitation id once it is done. */
  readonly onComplete: (listener: (elicitationId: string) => void) => Disposable =
    this.#completed.event;

  /** The callback URL, once the gateway listens over HTTP (the first listener's). */
  get redirectUri(): string | undefined {
    return this.#redirectUri;
  }

  /** Sets the callback URL (the first listener's; later ones keep it). */
  useCallback(origin: string): void {
    this.#redirectUri ??= `${origin}${OAUTH_CALLBACK_PATH}`;
  }

  /**
   * The login of `principal` to `server` on its own `host`: the one waiting already, else a new
   * one (`host.startAuthorization`). Refused with `QUEUE_FULL` when too many wait.
   */
  async start(host: McpHost, server: string, principal: string): Promise<UpstreamLogin> {
    if (this.#closed) throw new McpHostError('CONNECTION_CLOSED', 'the gateway closed');
    const key = `${principal}\u0000${server}`;
    const waiting = this.#pending.get(key);
    if (waiting !== undefined) return waiting;
    if (this.#pending.size >= MAX_PENDING_LOGINS)
      throw new McpHostError('QUEUE_FULL', `too many upstream logins wait for their callback`, {
        serverName: server,
      });
    const started = await host.startAuthorization(server);
    const again = this.#pending.get(key);
    if (again !== undefined) return again;
    let settle!: (error?: unknown) => void;
    const done = new Promise<void>((resolve, reject) => {
      settle = (error) => (error === undefined ? resolve() : reject(toMcpHostError(error)));
    });
    // Nobody may be waiting when it fails (the client gave up): not an unhandled rejection.
    done.catch(() => {});
    const timer = setTimeout(
      () =>
        this.#end(
          pending,
          new McpHostError('REQUEST_TIMEOUT', `the login to '${server}' was not finished in time`, {
            serverName: server,
          }),
        ),
      Math.max(0, started.expiresAt - Date.now()),
    );
    timer.unref();
    const pending: Pending = {
      key,
      host,
      server,
      elicitationId: randomUUID(),
      url: started.url.href,
      done,
      settle,
      timer,
    };
    this.#pending.set(key, pending);
    this.#byState.set(started.state, pending);
    return pending;
  }

  /** The callback: the URL the browser was sent back to, with the flow's `state`. */
  async complete(redirect: URL): Promise<CallbackAnswer> {
    const state = redirect.searchParams.get('state');
    const pending = state === null ? undefined : this.#byState.get(state);
    if (pending === undefined || this.#pending.get(pending.key) !== pending)
      return { status: 400, message: 'This login is unknown, used or expired.' };
    this.#byState.delete(state!);
    try {
      const status = await pending.host.completeAuthorization(pending.server, redirect);
      if (status.state !== 'ready' && status.state !== 'degraded')
        throw new McpHostError(
          'AUTH_FAILED',
          `logged in, but '${pending.server}' is ${status.state}${status.lastError === undefined ? '' : `: ${status.lastError.message}`}`,
          { serverName: pending.server },
        );
      this.#end(pending);
      return { status: 200, message: `Logged in to '${pending.server}'. You can close this page.` };
    } catch (error) {
      const failure = toMcpHostError(error);
      this.#end(pending, failure);
      return {
        status: 400,
        message: `The login to '${pending.server}' failed: ${failure.message}`,
      };
    }
  }

  /** Gives up every waiting login. */
  close(): void {
    this.#closed = true;
    for (const pending of [...this.#pending.values()])
      this.#end(pending, new McpHostError('CONNECTION_CLOSED', 'the gateway closed'));
  }

  #end(pending: Pending, error?: unknown): void {
    if (this.#pending.get(pending.key) !== pending) return;
    this.#pending.delete(pending.key);
    for (const [state, entry] of this.#byState) if (entry === pending) this.#byState.delete(state);
    clearTimeout(pending.timer);
    pending.settle(error);
    if (error === undefined) this.#completed.fire(pending.elicitationId);
  }
}
