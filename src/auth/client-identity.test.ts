import type * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { MemoryTokenStore } from '../../test/helpers/memory-token-store.js';
import { registerClient } from '../auth.js';

const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';

/** The grant_types a registration at `as` asks for (the request body, answered as a server would). */
async function registeredGrants(
  as: Partial<oauth.AuthorizationServer>,
  grantTypes?: string[],
): Promise<unknown> {
  let body: { grant_types?: unknown } = {};
  await registerClient(
    { issuer: 'https://as.example', registration_endpoint: 'https://as.example/register', ...as },
    {
      redirectUris: ['http://127.0.0.1/callback'],
      ...(grantTypes === undefined ? {} : { grantTypes }),
    },
    new MemoryTokenStore(),
    (_url, init) => {
      body = JSON.parse(init.body as string) as typeof body;
      return Promise.resolve(Response.json({ ...body, client_id: 'registered' }, { status: 201 }));
    },
  );
  return body.grant_types;
}

describe('registerClient: the device grant', () => {
  it('is asked for with authorization_code where the server offers it', async () => {
    const device = { device_authorization_endpoint: 'https://as.example/device' };
    expect(await registeredGrants(device)).toEqual(['authorization_code', 'refresh_token', DEVICE]);
    expect(
      await registeredGrants({ ...device, grant_types_supported: ['authorization_code', DEVICE] }),
    ).toEqual(['authorization_code', 'refresh_token', DEVICE]);
  });

  it('is not asked for where it is not offered, nor for machine-to-machine clients', async () => {
    expect(await registeredGrants({})).toEqual(['authorization_code', 'refresh_token']);
    expect(
      await registeredGrants({
        device_authorization_endpoint: 'https://as.example/device',
        grant_types_supported: ['authorization_code'],
      }),
    ).toEqual(['authorization_code', 'refresh_token']);
    expect(
      await registeredGrants({ device_authorization_endpoint: 'https://as.example/device' }, [
        'client_credentials',
      ]),
    ).toEqual(['client_credentials']);
  });
});
