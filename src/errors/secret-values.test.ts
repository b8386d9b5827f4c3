import { describe, expect, it } from 'vitest';
import {
  envSecretValues,
  headerSecretValues,
  isRegistrableSecret,
  withoutAuthScheme,
} from './secret-values.js';

describe('the secret-value rule', () => {
  it('registers values worth it: not short, not a word in every message', () => {
    expect(isRegistrableSecret('s3cr3t-value')).toBe(true);
    for (const trivial of ['abc', 'debug', ' true ', '8080', 'production'])
      expect(isRegistrableSecret(trivial)).toBe(false);
  });

  it('strips an auth scheme word', () => {
    expect(withoutAuthScheme('Bearer abc.def')).toBe('abc.def');
    expect(withoutAuthScheme('token xyz')).toBe('xyz');
    expect(withoutAuthScheme('plain-value')).toBe('plain-value');
  });

  it('headers: every value but request-describing and public ones, with and without a scheme', () => {
    const values = headerSecretValues(
      {
        Authorization: 'Bearer tok-123456',
        'X-Tenant': 'tenant-abcdef',
        'X-Label': 'label-public',
        Accept: 'application/json',
        'User-Agent': 'my-agent/1.0',
        'X-Mode': 'debug',
        'X-Api-Key': '12345678',
      },
      ['x-LABEL'],
    );
    expect(values.sort()).toEqual(
      ['Bearer tok-123456', 'tok-123456', 'tenant-abcdef', '12345678'].sort(),
    );
  });

  it('env: every value but well-known variables, public names and trivial values', () => {
    const values = envSecretValues(
      {
        UPSTREAM_VALUE: 'upstream-9f8e7d',
        CLIENT_LABEL: 'label-public',
        PATH: '/usr/bin:/bin',
        home: '/home/someone',
        LOG_LEVEL: 'debug',
        REMOVED: undefined,
      },
      ['client_label'],
    );
    expect(values).toEqual(['upstream-9f8e7d']);
  });
});
