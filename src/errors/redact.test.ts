import { describe, expect, it } from 'vitest';
import { MASK, Redactor, preview, redact } from './redact.js';

describe('Redactor', () => {
  it('masks a registered secret by value, also JSON- and URL-encoded, until disposed', () => {
    const redactor = new Redactor();
    const secret = 's3cr3t "value"/x';
    const registration = redactor.addSecret(secret);
    expect(redactor.redact(`echo: ${secret}!`)).toBe(`echo: ${MASK}!`);
    expect(redactor.redact(JSON.stringify({ echoed: secret }))).toBe(`{"echoed":"${MASK}"}`);
    expect(redactor.redact(`?q=${encodeURIComponent(secret)}`)).toBe(`?q=${MASK}`);
    registration.dispose();
    expect(redactor.redact(`echo: ${secret}`)).toBe(`echo: ${secret}`);
  });

  it('counts registrations, so one owner disposing keeps the other protected', () => {
    const redactor = new Redactor();
    const a = redactor.addSecret('shared-secret');
    const b = redactor.addSecret('shared-secret');
    a.dispose();
    expect(redactor.redact('shared-secret')).toBe(MASK);
    b.dispose();
    expect(redactor.redact('shared-secret')).toBe('shared-secret');
  });

  it('ignores values too short to mask safely', () => {
    const redactor = new Redactor();
    redactor.addSecret('ab');
    expect(redactor.redact('abc ab')).toBe('abc ab');
    expect(redactor.secretCount).toBe(0);
  });

  it.each([
    ['Authorization: Bearer abc.def-ghi', 'Authorization: <masked>'],
    ['{"authorization":"Basic dXNlcjpwYXNz"}', '{"authorization":"<masked>"}'],
    ['x-api-key=12345678', 'x-api-key=<masked>'],
    ['sent Bearer eyJhbGciOi to the server', 'sent Bearer <masked> to the server'],
    ['https://user:hunter2@example.com/mcp', 'https://<masked>@example.com/mcp'],
    ['https://ghp_token@example.com/', 'https://<masked>@example.com/'],
    ['https://x.test/mcp?api_key=abc123&x=1', 'https://x.test/mcp?api_key=<masked>&x=1'],
    ['https://x.test/cb?code=abc&state=xyz', 'https://x.test/cb?code=<masked>&state=xyz'],
    ['GITHUB_TOKEN=ghx123 node server.js', 'GITHUB_TOKEN=<masked> node server.js'],
    ['{"client_secret": "abc"}', '{"client_secret": "<masked>"}'],
    ['key sk-abcdefghijklmnopqrstuv here', 'key <masked> here'],
    ['ghp_abcdefghijklmnopqrstuvwxyz0123', '<masked>'],
    ['AKIAABCDEFGHIJKLMNOP', '<masked>'],
    // Each shape in other cases and forms (every pattern is skipped for text it cannot match).
    ['PROXY-AUTHORIZATION: Basic abcd1234', 'PROXY-AUTHORIZATION: <masked>'],
    ['Set-Cookie: sid=abc; Path=/', 'Set-Cookie: <masked>'],
    ['Mcp-Session-Id: 0f1e2d3c', 'Mcp-Session-Id: <masked>'],
    ['X-Auth-Token=abcdef', 'X-Auth-Token=<masked>'],
    ['sent BEARER abcdefgh', 'sent BEARER <masked>'],
    ['wss://token@example.com/mcp', 'wss://<masked>@example.com/mcp'],
    ['DB_PASSWORD=hunter22', 'DB_PASSWORD=<masked>'],
    ['{"Api-Key": "abc"}', '{"Api-Key": "<masked>"}'],
    ['github_pat_abcdefghijklmnopqrstuvwxyz', '<masked>'],
    ['glpat-abcdefghijklmnopqrstuvwxyz', '<masked>'],
    ['xoxb-1234567890-abc', '<masked>'],
    [`AIza${'a'.repeat(35)}`, '<masked>'],
    ['eyJhbGciOiJIUzI1.eyJzdWIiOiIx.abcdefghijkl', '<masked>'],
  ])('masks credential shapes: %s', (input, expected) => {
    expect(new Redactor().redact(input)).toBe(expected);
  });

  it('leaves ordinary text alone', () => {
    const text =
      'server exited with code 1: cannot find module ./index.js (see https://example.com/docs?page=2)';
    expect(new Redactor().redact(text)).toBe(text);
  });
});

describe('preview', () => {
  it('is one short line, redacted, even when a secret straddles the cut', () => {
    const long = `${'a'.repeat(70)} Authorization: Bearer ${'z'.repeat(500)}\n${'b'.repeat(10_000)}`;
    const shown = preview(long, 80);
    expect(shown.length).toBeLessThanOrEqual(80);
    expect(shown).not.toContain('zzz');
    expect(shown).not.toContain('\n');
  });
});

describe('WWW-Authenticate challenges', () => {
  it('keeps auth-param names after the scheme, still masking credentials', () => {
    expect(redact('Bearer realm="mcp", error="invalid_token"')).toBe(
      'Bearer realm="mcp", error="invalid_token"',
    );
    expect(redact('Authorization: Bearer abcdefghijkl')).toBe('Authorization: <masked>');
    expect(redact('got Bearer abcdefghijkl')).toBe('got Bearer <masked>');
    expect(redact('Basic dXNlcjpwYXNzd29yZA==, next')).toBe('Basic <masked>, next');
  });
});
