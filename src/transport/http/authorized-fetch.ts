import type { Dispatcher, Response } from 'undici';
import type { AuthProvider } from './auth-provider.js';
import { fetchSameOrigin } from './same-origin-fetch.js';

export interface AuthorizedFetchRequest {
  url: URL;
  method: string;
  /** Headers of this request; the auth provider's are added on top, asked afresh for each try. */
  headers: Readonly<Record<string, string>>;
  auth: AuthProvider | undefined;
  body?: string;
  signal: AbortSignal;
  dispatcher: Dispatcher;
  /** Prefix for error messages (`server 'x': `). */
  where: string;
  serverName?: string;
}

/**
 * One HTTP request with the auth provider's headers, retried once after a 401 or 403 when the
 * provider says it has new credentials, following redirects only within the URL's origin.
 */
export async function authorizedFetch(request: AuthorizedFetchRequest): Promise<Response> {
  const { url, method, auth, signal } = request;
  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = { ...request.headers };
    if (auth !== undefined) Object.assign(headers, await auth.headers({ url, method }));
    const response = await fetchSameOrigin({ ...request, headers });
    if (
      (response.status === 401 || response.status === 403) &&
      attempt === 0 &&
      auth?.onUnauthorized !== undefined
    ) {
      const retry = await auth.onUnauthorized({
        status: response.status,
        wwwAuthenticate: response.headers.get('www-authenticate') ?? undefined,
        url,
        signal,
      });
      if (retry) {
        await response.body?.cancel().catch(() => {});
        continue;
      }
    }
    return response;
  }
}
