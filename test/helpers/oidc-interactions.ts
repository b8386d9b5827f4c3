/**
 * What a user does at an `oidc-provider` test server, shared by the fixtures that run one:
 * `followLogin` walks an authorization URL's redirects (with cookies) until it leaves the issuer,
 * and `approveDeviceCode` / `denyDeviceCode` record what the device pages would (RFC 8628).
 */
import type Provider from 'oidc-provider';

/** Follows `url`'s redirects on `issuer` and returns the first URL off it (the redirect URI). */
export async function followLogin(issuer: string, url: string | URL): Promise<string> {
  const cookies = new Map<string, string>();
  let next = new URL(url);
  for (let hop = 0; hop < 10; hop++) {
    if (next.origin !== issuer) return next.href;
    const response = await fetch(next, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    await response.arrayBuffer();
    const location = response.headers.get('location');
    if (location === null) throw new Error(`login stopped at ${next.pathname}: ${response.status}`);
    next = new URL(location, next);
  }
  throw new Error('login: too many redirects');
}

async function findDeviceCode(provider: Provider, userCode: string) {
  // As the device page does: the code the user typed, upper case, without the dash.
  const code = await provider.DeviceCode.findByUserCode(userCode.toUpperCase().replace(/\W/g, ''));
  if (code === undefined) throw new Error(`no device code for ${userCode}`);
  return code as typeof code & { clientId?: string };
}

/** Approves `userCode` for user-1: `resourceScope` on `resource`, plus `oidcScope` if given. */
export async function approveDeviceCode(
  provider: Provider,
  userCode: string,
  grantFor: { clientId?: string; resource: string; resourceScope: string; oidcScope?: string },
): Promise<void> {
  const code = await findDeviceCode(provider, userCode);
  const clientId = grantFor.clientId ?? String(code.clientId);
  const grant = new provider.Grant({ accountId: 'user-1', clientId });
  if (grantFor.oidcScope !== undefined) grant.addOIDCScope(grantFor.oidcScope);
  grant.addResourceScope(grantFor.resource, grantFor.resourceScope);
  code.grantId = await grant.save();
  code.accountId = 'user-1';
  // What the device pages' consent records: the granted resource and scope.
  code.resource = grantFor.resource;
  code.scope = [grantFor.oidcScope, grantFor.resourceScope].filter(Boolean).join(' ');
  code.authTime = Math.floor(Date.now() / 1000);
  await code.save();
}

/** Denies `userCode`, as the user saying no on the device page. */
export async function denyDeviceCode(provider: Provider, userCode: string): Promise<void> {
  const code = await findDeviceCode(provider, userCode);
  code.error = 'access_denied';
  code.errorDescription = 'the user said no';
  await code.save();
}
