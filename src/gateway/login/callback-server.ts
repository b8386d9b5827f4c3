import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../internal/logger.js';
import { OAUTH_CALLBACK_PATH, type UpstreamLogins } from './upstream-logins.js';

/** Connections the server holds at once (a browser opens a few; nothing else should). */
const MAX_CONNECTIONS = 16;
/** How long a connection may take to send its request headers (ms). */
const HEADERS_TIMEOUT_MS = 10_000;

/** The gateway's OAuth callback on a loopback port of its own, while it serves no HTTP. */
export interface CallbackServer {
  /** `http://127.0.0.1:<port>`: where the callback (`/oauth/callback`) is. */
  readonly origin: string;
  /** Stops listening and drops every connection. */
  close(): Promise<void>;
}

/**
 * Serves `logins`' callback on 127.0.0.1, a free port, for a gateway served over stdio (over
 * HTTP its listener serves it): a GET of `/oauth/callback` whose `Host` names this server itself
 * (`127.0.0.1:<port>` or `localhost:<port>`: a page cannot reach it through a rebound DNS name)
 * finishes the login its `state` names; anything else is 404 (403 for another `Host`). Unlike
 * `auth login`'s one-shot loopback listener it stays up for every login of the gateway's clients,
 * until closed.
 */
export async function startCallbackServer(
  logins: UpstreamLogins,
  logger: Logger,
): Promise<CallbackServer> {
  const server = createServer((req, res) => void answer(req, res));
  server.maxConnections = MAX_CONNECTIONS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = HEADERS_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref();
  const port = (server.address() as AddressInfo).port;
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const origin = `http://127.0.0.1:${port}`;

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.on('error', () => {});
    const reply = (status: number, message: string) => {
      const body = `${message}\n`;
      res.writeHead(status, {
        'content-type': 'text/plain; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      });
      res.end(body);
    };
    if (!hosts.has(req.headers.host?.toLowerCase() ?? ''))
      return reply(403, 'Forbidden: this Host is not allowed');
    const url = new URL(req.url ?? '/', origin);
    if (req.method !== 'GET' || url.pathname !== OAUTH_CALLBACK_PATH)
      return reply(404, 'Not found');
    const outcome = await logins.complete(url);
    if (outcome.status !== 200)
      logger.warn(`gateway: an upstream login's callback failed: ${outcome.message}`);
    reply(outcome.status, outcome.message);
  }

  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
