import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { RequestGuard } from './request-guard.js';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('RequestGuard', () => {
  const guard = new RequestGuard({
    bearerToken: 'secret-token-of-enough-length',
    hostname: '127.0.0.1',
    port: 8808,
    allowedOrigins: ['https://app.example'],
    allowedHosts: ['gateway.internal:8808'],
  });
  const ok = { host: '127.0.0.1:8808', authorization: 'Bearer secret-token-of-enough-length' };

  it('lets through the loopback hosts with the port, the configured ones, and their origins', () => {
    for (const host of ['127.0.0.1:8808', 'localhost:8808', '[::1]:8808', 'gateway.internal:8808'])
      expect(guard.check(request({ ...ok, host }))).toBeUndefined();
    for (const origin of ['http://localhost:8808', 'http://127.0.0.1:8808', 'https://app.example'])
      expect(guard.check(request({ ...ok, origin }))).toBeUndefined();
    expect(
      guard.check(request({ ...ok, authorization: 'bearer  secret-token-of-enough-length' })),
    ).toBeUndefined();
  });

  it('refuses a foreign Host or Origin (403) and a missing or wrong token (401)', () => {
    for (const host of ['evil.example:8808', 'localhost:9999', 'localhost'])
      expect(guard.check(request({ ...ok, host }))).toMatchObject({ status: 403 });
    expect(guard.check(request({ authorization: ok.authorization }))).toMatchObject({
      status: 403,
    });
    for (const origin of ['http://evil.example', 'https://localhost:8808', 'null'])
      expect(guard.check(request({ ...ok, origin }))).toMatchObject({ status: 403 });
    for (const authorization of [
      undefined,
      'Bearer wrong',
      'Bearer secret-token-of-enough-length-and-more',
      'Basic c2VjcmV0',
      'secret-token-of-enough-length',
    ]) {
      const headers: Record<string, string> = { host: ok.host };
      if (authorization !== undefined) headers.authorization = authorization;
      const refusal = guard.check(request(headers));
      expect(refusal).toMatchObject({ status: 401 });
      expect(refusal?.headers?.['www-authenticate']).toMatch(/^Bearer /);
      expect(JSON.stringify(refusal)).not.toContain('secret-token');
    }
  });

  it('without a token, checks only Host and Origin', () => {
    const open = new RequestGuard({
      bearerToken: undefined,
      hostname: '::1',
      port: 80,
      allowedOrigins: [],
      allowedHosts: [],
    });
    expect(open.check(request({ host: '[::1]' }))).toBeUndefined();
    expect(open.check(request({ host: 'localhost:80' }))).toBeUndefined();
    expect(open.check(request({ host: 'evil.example' }))).toMatchObject({ status: 403 });
  });

  it('knows each named client by its token, with or without a default token', () => {
    const clients = new Map([
      ['alice', 'alice-token-0123456789'],
      ['bob', 'bob-token-0123456789'],
    ]);
    const named = new RequestGuard({
      bearerToken: undefined,
      clients,
      hostname: '127.0.0.1',
      port: 8808,
      allowedOrigins: [],
      allowedHosts: [],
    });
    const as = (token: string | undefined) =>
      request({
        host: '127.0.0.1:8808',
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      });
    expect(named.check(as('alice-token-0123456789'))).toBeUndefined();
    expect(named.principalOf(as('alice-token-0123456789'))).toBe('alice');
    expect(named.principalOf(as('bob-token-0123456789'))).toBe('bob');
    for (const token of [undefined, 'carol-token-0123456789', 'secret-token-of-enough-length'])
      expect(named.check(as(token))).toMatchObject({ status: 401 });
    const both = new RequestGuard({
      bearerToken: 'secret-token-of-enough-length',
      clients,
      hostname: '127.0.0.1',
      port: 8808,
      allowedOrigins: [],
      allowedHosts: [],
    });
    expect(both.check(as('secret-token-of-enough-length'))).toBeUndefined();
    expect(both.principalOf(as('secret-token-of-enough-length'))).toBeUndefined();
    expect(both.principalOf(as('bob-token-0123456789'))).toBe('bob');
  });
});
