import type { Dispatcher } from 'undici';
import type { AuthProvider } from './auth-provider.js';
import type { HttpResponse } from './http-response.js';
import type { RequestCancel } from './request-cancel.js';
import { fetchSameOrigin } from './same-origin-fetch.js';

export interface AuthorizedFetchRequest {
  url: URL;
  method: 'GET' | 'POST' | 'DELETE';
  /** Headers of this request; the auth provider's are added on top, asked afresh for each try. */
  headers: Readonly<Record<string, string>>;
  auth: AuthProvider | undefined;
  body?: string;
  cancel: RequestCancel;
  dispatcher: Dispatcher;
  /** Prefix for error messages (`server 'x': `). */
  where: string;
  serverName?: string;
}

/**
 * One HTTP request with the auth provider's headers, retried once after a 401 or 403 when the
 * provider says it has new credentials, following redirects only within the URL's origin.
 */
export async function authorizedFetch(request: AuthorizedFetchRequest): Promise<HttpResponse> {
  const { url, method, auth, cancel } = request;
  for (let attempt = 0; ; attempt++) {
    const headers =
      auth === undefined
        ? request.headers
        : { ...request.headers, ...(await auth.headers({ url, method })) };
    const response = await fetchSameOrigin({ ...request, headers });
    if (
      (response.status === 401 || response.status === 403) &&
      attempt === 0 &&
      auth?.onUnauthorized !== undefined
    ) {
      const retry = await auth.onUnauthorized({
        status: response.status,
        wwwAuthenticate: response.header('www-authenticate') ?? undefined,
        url,
        signal: cancel.signal,
      });
      if (retry) {
        response.discard();
        continue;
      }
    }
    return response;
  }
}
