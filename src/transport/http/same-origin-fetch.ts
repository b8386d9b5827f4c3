import { fetch as undiciFetch, type Dispatcher, type Response } from 'undici';
import { McpHostError } from '../../errors/index.js';
import { MAX_REDIRECTS } from './http-options.js';

export interface SameOriginFetchRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  dispatcher: Dispatcher;
  /** Prefix for error messages (`server 'x': `). */
  where: string;
  serverName?: string;
}

/**
 * One fetch that follows redirects only within the URL's origin (so credentials never reach
 * another one) and, for a POST, only the method-preserving 307 and 308, at most `MAX_REDIRECTS`
 * times. Any other redirect is an `HTTP_STATUS` error with `details.status`.
 */
export async function fetchSameOrigin(request: SameOriginFetchRequest): Promise<Response> {
  const { method, headers, body, signal, dispatcher } = request;
  const origin = request.url.origin;
  let url = request.url;
  for (let redirects = 0; ; redirects++) {
    const response = await undiciFetch(url, {
      method,
      headers,
      body,
      signal,
      redirect: 'manual',
      dispatcher,
    });
    const location = response.headers.get('location');
    if (!isRedirect(response.status) || location === null) return response;
    await response.body?.cancel().catch(() => {});
    const target = new URL(location, url);
    const followable =
      method === 'POST' ? response.status === 307 || response.status === 308 : true;
    if (!followable || target.origin !== origin || redirects >= MAX_REDIRECTS) {
      const where =
        target.origin === origin ? 'the same origin' : `another origin (${target.origin})`;
      throw new McpHostError(
        'HTTP_STATUS',
        `${request.where}${method} got a ${response.status} redirect to ${where}, not followed`,
        { serverName: request.serverName, details: { status: response.status } },
      );
    }
    url = target;
  }
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}
