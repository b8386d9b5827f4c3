/**
 * The loopback redirect listener of the authorization code flow (RFC 8252 §7.3): an HTTP server
 * on 127.0.0.1 (a random port by default) that waits for the one browser redirect carrying the
 * authorization response. It accepts exactly one GET to its path whose `Host` names the
 * listener itself (`127.0.0.1:<port>` or `localhost:<port>`, so a page in the browser cannot
 * reach it through a rebound DNS name), answers it with a fixed page that echoes nothing, hands
 * the full redirect URL (`code`, `state`, `iss`, or `error`) to the caller, and closes. Checking
 * `state` and `iss` is the caller's work. It also closes, with a typed error, when its deadline
 * passes, when the caller's signal aborts and when the caller closes it; every socket goes with
 * it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpHostError } from '../errors/mcp-host-error.js';
import { onAbort } from '../internal/signals.js';

export interface LoopbackListenerOptions {
  /** The path of the redirect URI (`/callback` by default). */
  path?: string;
  /**
   * The port: 0 (the default) lets the system pick a free one, as RFC 8252 recommends; a fixed
   * one is for authorization servers that insist on the exact registered redirect URI.
   */
  port?: number;
  /** How long to wait for the redirect (ms, 5 minutes by default: a person is logging in). */
  timeoutMs?: number;
  /** Stops waiting (the listener closes and `redirect` rejects with ABORTED). */
  signal?: AbortSignal;
}

export const DEFAULT_LOOPBACK_LISTENER_OPTIONS = Object.freeze({
  path: '/callback',
  timeoutMs: 5 * 60_000,
} as const);

export interface LoopbackListener extends AsyncDisposable {
  /** `http://127.0.0.1:<port><path>`: the redirect URI to send in the authorization request. */
  readonly redirectUri: string;
  /**
   * The full URL the browser was redirected to, once; rejects with REQUEST_TIMEOUT
   * (`details.kind: 'redirect'`) when none came in time, ABORTED when the signal aborted,
   * CONNECTION_CLOSED when the listener was closed first. The listener is closed either way.
   */
  readonly redirect: Promise<URL>;
  /** Resolves once the listener has stopped listening and dropped every connection. */
  readonly closed: Promise<void>;
  /** Stops listening and drops every connection (idempotent); resolves as `closed` does. */
  close(): Promise<void>;
}

/** Connections the listener holds at once (a browser opens a few; nothing else should). */
const MAX_CONNECTIONS = 16;
/** How long a connection may take to send its request headers (ms). */
const HEADERS_TIMEOUT_MS = 10_000;

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  connection: 'close',
} as const;

function page(title: string, text: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body></html>`;
}

const DONE_PAGE = page(
  'Authorization received',
  'You can close this tab and return to the application.',
);
const ERROR_PAGE = page(
  'Authorization not completed',
  'The authorization server reported an error. You can close this tab and return to the application, which says more.',
);

/** Starts a listener on 127.0.0.1; resolves once it is listening. */
export async function startLoopbackListener(
  options: LoopbackListenerOptions = {},
): Promise<LoopbackListener> {
  const path = options.path ?? DEFAULT_LOOPBACK_LISTENER_OPTIONS.path;
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOOPBACK_LISTENER_OPTIONS.timeoutMs;
  const port = options.port ?? 0;
  if (!path.startsWith('/') || /[?#\s]/.test(path))
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `loopback listener path must start with '/' and hold no query, fragment or space (got '${path}')`,
    );
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `timeoutMs must be a positive number (got ${timeoutMs})`,
    );
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new McpHostError('INVALID_ARGUMENT', `port must be 0-65535 (got ${port})`);
  if (options.signal?.aborted === true)
    throw new McpHostError('ABORTED', 'the loopback listener was aborted before it started', {
      cause: options.signal.reason,
    });

  const server = createServer({
    headersTimeout: HEADERS_TIMEOUT_MS,
    requestTimeout: HEADERS_TIMEOUT_MS,
  });
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((cause: unknown) => {
    const errno = (cause as { code?: unknown }).code;
    throw new McpHostError(
      'CONNECT_FAILED',
      `could not listen on 127.0.0.1:${port}${typeof errno === 'string' ? ` (${errno})` : ''}`,
      {
        cause,
        details: typeof errno === 'string' ? { errno } : undefined,
      },
    );
  });
  // A socket error after listening (a reset browser connection) must not crash the host.
  server.on('error', () => {});
  const bound = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${bound}`;
  const allowedHosts = new Set([`127.0.0.1:${bound}`, `localhost:${bound}`]);

  let settled = false;
  let closing = false;
  let removeAbort = (): void => {};
  let resolveRedirect!: (url: URL) => void;
  let rejectRedirect!: (error: McpHostError) => void;
  const redirect = new Promise<URL>((resolve, reject) => {
    resolveRedirect = resolve;
    rejectRedirect = reject;
  });
  // Whoever closes without awaiting `redirect` must not see an unhandled rejection.
  redirect.catch(() => {});

  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  const close = (): Promise<void> => {
    if (!closing) {
      closing = true;
      clearTimeout(timer);
      removeAbort();
      server.close(() => markClosed());
      server.closeAllConnections();
    }
    return closed;
  };
  const fail = (error: McpHostError): void => {
    if (settled) return;
    settled = true;
    rejectRedirect(error);
    void close();
  };

  const timer = setTimeout(
    () =>
      fail(
        new McpHostError(
          'REQUEST_TIMEOUT',
          `no authorization redirect reached ${origin}${path} within ${timeoutMs} ms`,
          {
            details: { kind: 'redirect', timeoutMs },
          },
        ),
      ),
    timeoutMs,
  );
  removeAbort = onAbort(options.signal, (reason) =>
    fail(
      new McpHostError('ABORTED', 'waiting for the authorization redirect was aborted', {
        cause: reason,
      }),
    ),
  );

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const refuse = (status: number, text: string): void => {
      res
        .writeHead(status, { ...PAGE_HEADERS, 'content-type': 'text/plain; charset=utf-8' })
        .end(text);
    };
    const host = req.headers.host?.toLowerCase();
    if (host === undefined || !allowedHosts.has(host)) return refuse(400, 'Bad Host header.');
    let target: URL;
    try {
      target = new URL(req.url ?? '/', origin);
    } catch {
      return refuse(400, 'Bad request.');
    }
    if (target.pathname !== path) return refuse(404, 'Not found.');
    if (req.method !== 'GET') return refuse(405, 'Method not allowed.');
    if (settled) return refuse(410, 'This sign-in has already finished.');
    settled = true;
    // Built on our own origin: an absolute-form request line cannot name another one.
    const url = new URL(`${path}${target.search}`, origin);
    res.writeHead(200, PAGE_HEADERS);
    // Closed once the page is out, or the browser went away ('close' comes either way).
    res.once('close', () => void close());
    res.end(url.searchParams.has('error') ? ERROR_PAGE : DONE_PAGE);
    resolveRedirect(url);
  });

  const listener: LoopbackListener = {
    redirectUri: `${origin}${path}`,
    redirect,
    closed,
    close: () => {
      fail(
        new McpHostError(
          'CONNECTION_CLOSED',
          'the loopback listener was closed before the authorization redirect arrived',
        ),
      );
      return close();
    },
    [Symbol.asyncDispose]: () => listener.close(),
  };
  return listener;
}
