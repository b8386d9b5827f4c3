/**
 * The guarded `fetch` of every OAuth hop (discovery, registration, token, device requests): it
 * has fetch's signature, so it plugs into oauth4webapi's `customFetch` and anything else that
 * takes a fetch, and it refuses what would let a hostile metadata chain reach where it should
 * not. Each call:
 *
 * - checks every address the host resolves to (one lookup, injectable) against the egress policy
 *   inside the connection's own `lookup`, so the socket goes to the addresses that were checked
 *   and no second lookup can differ (DNS rebinding); an IP-literal host is checked before
 *   anything is sent;
 * - follows redirects itself, only within the request's origin and at most `maxRedirects` times;
 *   a redirect to another origin fails with both origins named, so neither the `Authorization`
 *   header nor the body ever leaves the origin they were meant for;
 * - reads the response body as a stream, at most `maxResponseBytes` of it (decoded), and returns
 *   it buffered in a standard `Response`;
 * - runs under one deadline (`timeoutMs`, from the call to the body's end) and the caller's
 *   `signal`;
 * - fails only with a typed `McpHostError` naming the URL without its query or user info.
 *
 * Every call has its own connection pool, destroyed before the call settles: nothing outlives it
 * and there is nothing to close. Direct connections only: a proxy would resolve the names itself,
 * out of the policy's sight.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { McpHostError } from '../errors/mcp-host-error.js';
import { deadlineSignal, linkSignals } from '../internal/signals.js';
import { fetchErrno, isConnectErrno } from '../transport/http/http-problems.js';
import { HttpResponse } from '../transport/http/http-response.js';
import { BodyTooLargeError, readBodyCapped } from '../transport/http/read-body.js';
import { EgressPolicy, type AddressRefusal, type EgressPolicyOptions } from './egress-policy.js';

/** A fetch under the egress policy: fetch's own signature, so it plugs in wherever one goes. */
export type EgressFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** One address a host name resolves to. */
export interface LookupAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (the default uses the system resolver). */
export type EgressLookup = (hostname: string) => Promise<readonly LookupAddress[]>;

export interface EgressFetchOptions extends EgressPolicyOptions {
  /** The DNS lookup (for tests: make a name resolve to a private address). */
  lookup?: EgressLookup;
  /** The deadline of a whole call, redirects and body included (ms). */
  timeoutMs?: number;
  /** The deadline of one connection (ms). */
  connectTimeoutMs?: number;
  /** The largest response body read (decoded bytes); a larger one fails the call. */
  maxResponseBytes?: number;
  /** Same-origin redirects followed before the call fails. */
  maxRedirects?: number;
  /** The MCP server whose authorization this is, for errors. */
  serverName?: string;
}

export const DEFAULT_EGRESS_FETCH_OPTIONS = Object.freeze({
  timeoutMs: 30_000,
  connectTimeoutMs: 10_000,
  maxResponseBytes: 1024 * 1024,
  maxRedirects: 5,
} as const);

/** Request headers that belong to one connection (undici refuses some of them outright). */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'expect',
  'host',
  'content-length',
]);

/** Response headers that no longer hold once the body is decoded and buffered. */
const DECODED_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding']);

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** A host refused by the policy, thrown by the connection's lookup and reported with the URL. */
class RefusedAddressError extends Error {
  constructor(
    readonly hostname: string,
    readonly refusal: AddressRefusal,
  ) {
    super(`refused ${hostname} (${refusal.address})`);
  }
}

/** A fetch for OAuth requests under the egress policy and bounds of `options`. */
export function createEgressFetch(options: EgressFetchOptions = {}): EgressFetch {
  const settings = {
    timeoutMs: positive(options.timeoutMs, 'timeoutMs', DEFAULT_EGRESS_FETCH_OPTIONS.timeoutMs),
    connectTimeoutMs: positive(
      options.connectTimeoutMs,
      'connectTimeoutMs',
      DEFAULT_EGRESS_FETCH_OPTIONS.connectTimeoutMs,
    ),
    maxResponseBytes: positive(
      options.maxResponseBytes,
      'maxResponseBytes',
      DEFAULT_EGRESS_FETCH_OPTIONS.maxResponseBytes,
    ),
    maxRedirects: nonNegative(options.maxRedirects, DEFAULT_EGRESS_FETCH_OPTIONS.maxRedirects),
    serverName: options.serverName,
    policy: new EgressPolicy(options),
    lookup: options.lookup ?? systemLookup,
  };
  return (input, init) => egressFetch(settings, input, init);
}

type Settings = Required<
  Omit<EgressFetchOptions, 'serverName' | 'serverIsLocal' | 'allowHosts'>
> & {
  serverName: string | undefined;
  policy: EgressPolicy;
};

async function egressFetch(
  settings: Settings,
  input: string | URL | Request,
  init: RequestInit | undefined,
): Promise<Response> {
  const fail = (code: Parameters<typeof error>[1], message: string, more: More = {}) =>
    error(settings, code, message, more);
  let request: Request;
  try {
    // The caller's signal is honoured below, not linked into the Request (no listener left on it).
    request = new Request(input, { ...init, signal: null });
  } catch (cause) {
    throw fail('INVALID_ARGUMENT', 'not a usable request (its URL or options)', { cause });
  }
  const callerSignal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
  if (callerSignal?.aborted === true)
    throw fail('ABORTED', `${describeUrl(new URL(request.url))} aborted before it was sent`, {
      cause: callerSignal.reason,
    });
  const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name)) headers[name] = value;
  });

  const start = new URL(request.url);
  const deadline = deadlineSignal(settings.timeoutMs, () => new Error('deadline'));
  const linked = linkSignals(callerSignal ?? undefined, deadline.signal);
  const agent = new Agent({
    connect: { timeout: settings.connectTimeoutMs, lookup: checkedLookup(settings) },
    headersTimeout: settings.timeoutMs,
    bodyTimeout: settings.timeoutMs,
  });
  let url = start;
  try {
    return await followWithinOrigin(settings, agent, linked.signal, {
      url: start,
      method: request.method,
      headers,
      body,
      redirect: request.redirect,
      onHop: (hop) => (url = hop),
    });
  } catch (cause) {
    if (cause instanceof McpHostError) throw cause;
    const where = describeUrl(url);
    // Checked again: the caller may have aborted since the check above.
    if (isAborted(callerSignal))
      throw fail('ABORTED', `${where} aborted`, { cause: callerSignal?.reason, url });
    if (deadline.signal.aborted)
      throw fail(
        'REQUEST_TIMEOUT',
        `${where} got no complete response within ${settings.timeoutMs} ms`,
        {
          url,
          details: { kind: 'total' },
        },
      );
    if (cause instanceof RefusedAddressError) throw addressRefused(settings, url, cause);
    if (cause instanceof BodyTooLargeError)
      throw fail(
        'MESSAGE_TOO_LARGE',
        `${where} answered with more than ${settings.maxResponseBytes} bytes (maxResponseBytes); the body was cut off`,
        { url, details: { bytes: cause.bytes, maxResponseBytes: settings.maxResponseBytes } },
      );
    const errno = fetchErrno(cause);
    if (errno === 'UND_ERR_CONNECT_TIMEOUT')
      throw fail(
        'CONNECT_TIMEOUT',
        `no connection to ${url.origin} within ${settings.connectTimeoutMs} ms`,
        {
          url,
          cause,
        },
      );
    const code =
      errno !== undefined && isConnectErrno(errno) ? 'CONNECT_FAILED' : 'HTTP_REQUEST_FAILED';
    throw fail(code, `${where} failed${errno === undefined ? '' : ` (${errno})`}`, {
      url,
      cause,
      details: errno === undefined ? undefined : { errno },
    });
  } finally {
    linked.cleanup();
    deadline.cleanup();
    await agent.destroy().catch(() => {});
  }
}

interface Exchange {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  redirect: Request['redirect'];
  /** Told of every URL requested (for errors). */
  onHop(url: URL): void;
}

/** The request, and the same-origin redirects it leads to, answered by one buffered Response. */
async function followWithinOrigin(
  settings: Settings,
  dispatcher: Dispatcher,
  signal: AbortSignal,
  exchange: Exchange,
): Promise<Response> {
  const origin = exchange.url.origin;
  let { url, method, headers, body } = exchange;
  for (let redirects = 0; ; redirects++) {
    exchange.onHop(url);
    checkUrl(settings, url);
    const data = await dispatcher.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method,
      headers,
      body,
      signal,
    });
    const response = new HttpResponse(data.statusCode, data.headers, data.body);
    const location = isRedirect(response.status) ? response.header('location') : null;
    if (location === null) {
      const bytes = NULL_BODY_STATUSES.has(response.status)
        ? undefined
        : await readBodyCapped(response.body, settings.maxResponseBytes);
      return toResponse(settings, response, bytes, url, redirects > 0);
    }
    response.discard();
    const where = describeUrl(url);
    let target: URL;
    try {
      target = new URL(location, url);
    } catch {
      throw error(
        settings,
        'HTTP_STATUS',
        `${where} redirected (${response.status}) to an invalid location`,
        {
          url,
          details: { status: response.status },
        },
      );
    }
    const refuse = (reason: string, message: string, details: Record<string, unknown> = {}) =>
      error(settings, 'EGRESS_REFUSED', message, {
        url,
        details: { reason, status: response.status, ...details },
      });
    if (exchange.redirect === 'error')
      throw refuse('redirect', `${where} redirected (${response.status}); redirects were refused`);
    if (target.origin !== origin)
      throw refuse(
        'cross-origin-redirect',
        `${where} redirected (${response.status}) from ${origin} to another origin (${target.origin}); not followed`,
        { from: origin, to: target.origin },
      );
    if (redirects >= settings.maxRedirects)
      throw refuse(
        'redirect-limit',
        `${where} redirected more than ${settings.maxRedirects} times (maxRedirects)`,
      );
    // As fetch does: 303 turns anything but GET and HEAD into a GET, 301 and 302 turn a POST.
    if (
      (response.status === 303 && method !== 'GET' && method !== 'HEAD') ||
      ((response.status === 301 || response.status === 302) && method === 'POST')
    ) {
      method = 'GET';
      body = undefined;
      headers = Object.fromEntries(
        Object.entries(headers).filter(([name]) => !name.startsWith('content-')),
      );
    }
    url = target;
  }
}

/** The scheme, and an IP-literal host (which no lookup sees), checked before a request. */
function checkUrl(settings: Settings, url: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw error(settings, 'EGRESS_REFUSED', `${describeUrl(url)} is not an http(s) URL`, {
      url,
      details: { reason: 'scheme' },
    });
  const host = url.hostname;
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  if (isIP(literal) !== 0) {
    const refusal = settings.policy.refusal(literal, literal);
    if (refusal !== undefined)
      throw addressRefused(settings, url, new RefusedAddressError(literal, refusal));
  }
}

/**
 * The connection's `lookup` (as `net.connect` calls it): one lookup through `settings.lookup`,
 * every address checked, only checked addresses handed to the socket.
 */
function checkedLookup(settings: Settings): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(settings, hostname, options.family).then(
      (addresses) => {
        if (options.all === true) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (cause: NodeJS.ErrnoException) => callback(cause, ''),
    );
  };
}

async function resolveChecked(
  settings: Settings,
  hostname: string,
  family: number | string | undefined,
): Promise<LookupAddress[]> {
  const wanted = family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : 0;
  const found = (await settings.lookup(hostname)).filter(
    (entry) => wanted === 0 || entry.family === wanted,
  );
  if (found.length === 0)
    throw Object.assign(new Error(`no address found for ${hostname}`), { code: 'ENOTFOUND' });
  // One refused address refuses the host: the socket could pick any of them.
  for (const entry of found) {
    const refusal = settings.policy.refusal(hostname, entry.address);
    if (refusal !== undefined) throw new RefusedAddressError(hostname, refusal);
  }
  return found.map((entry) => ({ address: entry.address, family: entry.family }));
}

async function systemLookup(hostname: string): Promise<LookupAddress[]> {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
}

function addressRefused(settings: Settings, url: URL, cause: RefusedAddressError): McpHostError {
  const { hostname, refusal } = cause;
  const what =
    refusal.range === 'invalid'
      ? `an address that is not a valid IP address (${refusal.address})`
      : `a ${refusal.range} address (${refusal.address})`;
  const resolved = hostname === refusal.address ? 'is' : `resolves to`;
  return error(
    settings,
    'EGRESS_REFUSED',
    `${describeUrl(url)} refused: ${hostname} ${resolved} ${what}; allowed only when the MCP server is itself local or allowHosts lists it`,
    {
      url,
      details: {
        reason: 'address',
        host: hostname,
        address: refusal.address,
        range: refusal.range,
      },
    },
  );
}

function toResponse(
  settings: Settings,
  response: HttpResponse,
  bytes: Buffer | undefined,
  url: URL,
  redirected: boolean,
): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined || DECODED_HEADERS.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  let result: Response;
  try {
    result = new Response(bytes ?? null, { status: response.status, headers });
  } catch (cause) {
    throw error(
      settings,
      'HTTP_REQUEST_FAILED',
      `${describeUrl(url)} answered with an invalid status (${response.status})`,
      {
        url,
        cause,
        details: { status: response.status },
      },
    );
  }
  Object.defineProperty(result, 'url', { value: url.href });
  Object.defineProperty(result, 'redirected', { value: redirected });
  return result;
}

interface More {
  url?: URL;
  cause?: unknown;
  details?: Record<string, unknown> | undefined;
}

function error(
  settings: Settings,
  code: ConstructorParameters<typeof McpHostError>[0],
  message: string,
  more: More,
): McpHostError {
  return new McpHostError(code, message, {
    serverName: settings.serverName,
    cause: more.cause,
    details:
      more.url === undefined && more.details === undefined
        ? undefined
        : { ...(more.url === undefined ? {} : { url: describeUrl(more.url) }), ...more.details },
  });
}

/** A URL as errors show it: origin and path, the query only as `?…`, never user info. */
function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}${url.search === '' ? '' : '?…'}`;
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new McpHostError('INVALID_ARGUMENT', `${name} must be a positive number (got ${value})`);
  return value;
}

function nonNegative(value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0)
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `maxRedirects must be a whole number ≥ 0 (got ${value})`,
    );
  return value;
}

function isAborted(signal: AbortSignal | null | undefined): boolean {
  return signal?.aborted === true;
}
