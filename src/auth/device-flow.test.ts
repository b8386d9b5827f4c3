import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { OAuthProvider, type OAuthProviderOptions } from '../auth.js';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { MemoryTokenStore } from '../../test/helpers/memory-token-store.js';
import { startOAuthFixture, type OAuthFixture } from '../../test/helpers/oauth-fixture.js';

const DEVICE_CODE = 'device-code-canary-6174';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

interface DeviceWorld {
  fixture: OAuthFixture;
  deviceRequests: URLSearchParams[];
  /** When each token request arrived (ms since the epoch). */
  polls: number[];
}

/**
 * The fixture as an authorization server with the device grant: `/as/device` hands out a code
 * with `interval` seconds and `expires_in`; each token request is answered by `answers` in order
 * (an OAuth error code, or 'ok' for tokens; the last one repeats).
 */
async function deviceWorld(
  answers: string[],
  device: { interval?: number; expires_in?: number } = {},
): Promise<DeviceWorld> {
  const fixture = await startOAuthFixture({ prmScopes: ['mcp:read'] });
  const world: DeviceWorld = { fixture, deviceRequests: [], polls: [] };
  fixture.options.metadata = { device_authorization_endpoint: `${fixture.issuer}/device` };
  fixture.options.route = (url, request, res) => {
    if (url.pathname !== '/as/device') return false;
    world.deviceRequests.push(new URLSearchParams(request.body));
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        device_code: DEVICE_CODE,
        user_code: 'WDJB-MJHT',
        verification_uri: 'https://as.example/device',
        verification_uri_complete: 'https://as.example/device?user_code=WDJB-MJHT',
        expires_in: device.expires_in ?? 600,
        interval: device.interval ?? 0.02,
      }),
    );
    return true;
  };
  fixture.options.token = (request) => {
    world.polls.push(Date.now());
    const answer = answers[Math.min(world.polls.length - 1, answers.length - 1)]!;
    if (request.body.get('grant_type') !== DEVICE_GRANT || answer === 'ok') return undefined;
    return { status: 400, json: { error: answer, error_description: `about ${DEVICE_CODE}` } };
  };
  return world;
}

function provider(
  fixture: OAuthFixture,
  clock: Pick<OAuthProviderOptions, 'now' | 'sleep'> = {},
): OAuthProvider {
  return new OAuthProvider({
    serverUrl: fixture.mcpUrl,
    serverName: 'device-server',
    store: new MemoryTokenStore(),
    client: { clientId: 'tv-client' },
    ...clock,
  });
}

/** Starts a device authorization on `world` and waits for it to fail; returns the error. */
async function deviceFailure(
  world: DeviceWorld,
  clock: Pick<OAuthProviderOptions, 'now' | 'sleep'> = {},
): Promise<{ oauth: OAuthProvider; error: unknown }> {
  const oauth = provider(world.fixture, clock);
  await oauth.startDeviceAuthorization();
  return { oauth, error: await oauth.waitForDeviceAuthorization().catch((e: unknown) => e) };
}

describe('the device authorization grant (RFC 8628) through OAuthProvider', () => {
  it('shows the code, polls through authorization_pending and slow_down, then saves the tokens', async () => {
    await using _guard = leakGuard();
    const world = await deviceWorld(['authorization_pending', 'slow_down', 'ok']);
    await using _fixture = world.fixture;
    // The waits between polls, asked of an injected sleep that returns at once.
    const waits: number[] = [];
    const oauth = provider(world.fixture, {
      sleep: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    });
    const before = Date.now();
    const shown = await oauth.startDeviceAuthorization();
    expect(shown).toEqual({
      verificationUri: 'https://as.example/device',
      verificationUriComplete: 'https://as.example/device?user_code=WDJB-MJHT',
      userCode: 'WDJB-MJHT',
      expiresAt: expect.any(Number),
    });
    expect(shown.expiresAt).toBeGreaterThanOrEqual(before + 600_000);
    expect(Object.fromEntries(world.deviceRequests[0]!)).toEqual({
      client_id: 'tv-client',
      scope: 'mcp:read',
      resource: world.fixture.mcpUrl,
    });
    expect(inspect(shown)).not.toContain(DEVICE_CODE);

    await oauth.waitForDeviceAuthorization();
    expect(await oauth.headers()).toEqual({ authorization: 'Bearer access-3' });
    expect(world.polls).toHaveLength(3);
    const poll = world.fixture.tokenRequests[0]!.body;
    expect(Object.fromEntries(poll)).toEqual({
      grant_type: DEVICE_GRANT,
      device_code: DEVICE_CODE,
      resource: world.fixture.mcpUrl,
      client_id: 'tv-client',
    });
    // The server's interval (20 ms) before each poll; slow_down adds 5 s for every later one.
    expect(waits).toEqual([20, 20, 5_020]);
  });

  it('ends with a typed error when the user denies or the code expires, and stops polling', async () => {
    await using _guard = leakGuard();
    for (const refusal of ['access_denied', 'expired_token']) {
      const world = await deviceWorld(['authorization_pending', refusal]);
      await using _fixture = world.fixture;
      const { oauth, error } = await deviceFailure(world);
      expect(error).toMatchObject({
        code: 'AUTH_FAILED',
        serverName: 'device-server',
        details: { step: 'device-poll', error: refusal },
      });
      expect(world.polls).toHaveLength(2);
      expect(JSON.stringify(error)).not.toContain(DEVICE_CODE);
      expect(inspect(error, { depth: 10 })).not.toContain(DEVICE_CODE);
      expect(await oauth.headers()).toEqual({});
    }
  });

  it('stops by itself once expiresAt has passed', async () => {
    await using _guard = leakGuard();
    const world = await deviceWorld(['authorization_pending'], { interval: 0.2, expires_in: 1 });
    await using _fixture = world.fixture;
    // A clock that each wait moves forward by the time waited: the code expires after 5 waits.
    let skipped = 0;
    const { error } = await deviceFailure(world, {
      now: () => Date.now() + skipped,
      sleep: (ms) => {
        skipped += ms;
        return Promise.resolve();
      },
    });
    expect(error).toMatchObject({
      code: 'AUTH_FAILED',
      details: { step: 'device-poll', error: 'expired_token' },
    });
    expect(world.polls.length).toBeGreaterThanOrEqual(1);
    expect(world.polls.length).toBeLessThanOrEqual(4);
  });

  it('an abort ends the wait at once with ABORTED, and leaves no timer', async () => {
    await using _guard = leakGuard();
    const world = await deviceWorld(['authorization_pending'], { interval: 60 });
    await using _fixture = world.fixture;
    const oauth = provider(world.fixture);
    await oauth.startDeviceAuthorization();
    const controller = new AbortController();
    const waiting = oauth.waitForDeviceAuthorization({ signal: controller.signal });
    controller.abort(new Error('user pressed Ctrl-C'));
    await expect(waiting).rejects.toMatchObject({
      code: 'ABORTED',
      details: { step: 'device-poll' },
    });
    expect(world.polls).toHaveLength(0);
  });

  it('is refused when the authorization server offers no device grant, or nothing was started', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture();
    const oauth = provider(fixture);
    await expect(oauth.waitForDeviceAuthorization()).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      details: { step: 'device-poll' },
    });
    await expect(oauth.startDeviceAuthorization()).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      details: { step: 'device-authorization' },
    });
  });
});
