import type { Dispatcher } from 'undici';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { HttpResponse } from './http-response.js';
import type { RequestCancel } from './request-cancel.js';

/** Redirects followed (within the origin) before a request fails. */
const MAX_REDIRECTS = 5;

export interface SameOriginFetchRequest {
  url: URL;
  method: 'GET' | 'POST' | 'DELETE';
  /** Sent as given (not copied, not changed), so a caller may reuse one object for many requests. */
  headers: Readonly<Record<string, string>>;
  body?: string;
  cancel: RequestCancel;
  dispatcher: Dispatcher;
  /** The server's name, for errors. */
  serverName: string | undefined;
}

/**
 * One request through undici's `Dispatcher.request()` (no WHATWG `fetch`: no Request, Response or
 * Headers objects and no web streams) that follows redirects only within the URL's origin (so
 * credentials never reach another one) and, for a POST, only the method-preserving 307 and 308,
 * at most `MAX_REDIRECTS` times. Any other redirect is an `HTTP_STATUS` error with
 * `details.status`. Aborting `cancel` fails the request, or its body once the headers are in.
 */
export async function fetchSameOrigin(request: SameOriginFetchRequest): Promise<HttpResponse> {
  const { method, headers, body, cancel, dispatcher } = request;
  const origin = request.url.origin;
  let url = request.url;
  for (let redirects = 0; ; redirects++) {
    const data = await dispatcher.request({
      origin,
      path: url.pathname + url.search,
      method,
      headers,
      body,
      signal: cancel,
    });
    const response = new HttpResponse(data.statusCode, data.headers, data.body);
    if (!isRedirect(response.status)) return response;
    const location = response.header('location');
    if (location === null) return response;
    response.discard();
    const target = new URL(location, url);
    const followable =
      method === 'POST' ? response.status === 307 || response.status === 308 : true;
    if (!followable || target.origin !== origin || redirects >= MAX_REDIRECTS) {
      const destination =
        target.origin === origin ? 'the same origin' : `another origin (${target.origin})`;
      throw new McpHostError(
        'HTTP_STATUS',
        `${method} got a ${response.status} redirect to ${destination}, not followed`,
        { serverName: request.serverName, details: { status: response.status } },
      );
    }
    url = target;
  }
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}
