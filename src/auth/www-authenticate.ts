import * as oauth from 'oauth4webapi';

/** What a 401 or 403 said in its `WWW-Authenticate` header (RFC 6750, RFC 9728). */
export interface BearerChallenge {
  /** `bearer` or `dpop` (lower case), the scheme the parameters came from. */
  scheme: string;
  /** RFC 9728 `resource_metadata`: where the protected resource metadata is. */
  resourceMetadata?: string;
  /** The scopes the request needs, split on spaces. */
  scopes?: string[];
  /** `invalid_token`, `insufficient_scope`, ... */
  error?: string;
  errorDescription?: string;
}

/** Where the header is "fetched" from: nothing leaves the process. */
const NOWHERE = new URL('https://www-authenticate.invalid/');

/**
 * The challenges of a header, parsed by oauth4webapi (quoted strings, escapes, several challenges
 * per header). Its parser is reachable only through a protected-resource request, so the request
 * is answered in-process with the header.
 */
async function challengesOf(header: string): Promise<readonly oauth.WWWAuthenticateChallenge[]> {
  try {
    await oauth.protectedResourceRequest('-', 'GET', NOWHERE, undefined, undefined, {
      [oauth.customFetch]: () =>
        Promise.resolve(
          new Response(null, { status: 401, headers: { 'www-authenticate': header } }),
        ),
    });
  } catch (error) {
    if (error instanceof oauth.WWWAuthenticateChallengeError) return error.cause;
  }
  return [];
}

/**
 * The Bearer (else DPoP) challenge of a `WWW-Authenticate` header, which may hold several
 * challenges; undefined when the header is missing, unparsable or names neither scheme.
 */
export async function parseWwwAuthenticate(
  header: string | undefined,
): Promise<BearerChallenge | undefined> {
  if (header === undefined || header.trim() === '') return undefined;
  const challenges = await challengesOf(header);
  const chosen =
    challenges.find((challenge) => challenge.scheme === 'bearer') ??
    challenges.find((challenge) => challenge.scheme === 'dpop');
  if (chosen === undefined) return undefined;
  const { parameters } = chosen;
  const scopes = parameters.scope?.split(' ').filter((scope) => scope !== '');
  return {
    scheme: chosen.scheme,
    ...(parameters.resource_metadata === undefined
      ? {}
      : { resourceMetadata: parameters.resource_metadata }),
    ...(scopes === undefined ? {} : { scopes }),
    ...(parameters.error === undefined ? {} : { error: parameters.error }),
    ...(parameters.error_description === undefined
      ? {}
      : { errorDescription: parameters.error_description }),
  };
}
