import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { McpHostError } from '../errors/mcp-host-error.js';
import { classifyRefreshFailure, retryAfterMs } from './refresh-failure.js';

function response(status: number, headers: Record<string, string> = {}): Response {
  return new Response('x', { status, headers });
}

describe('classifyRefreshFailure', () => {
  it.each([
    [
      'invalid_grant',
      { error: 'invalid_grant', status: 400 },
      { kind: 'invalid_grant', oauthError: 'invalid_grant' },
    ],
    ['invalid_client', { error: 'invalid_client', status: 401 }, { kind: 'invalid_client' }],
    [
      'temporarily_unavailable',
      { error: 'temporarily_unavailable', status: 400 },
      { kind: 'transient' },
    ],
    [
      'an OAuth error with 503',
      { error: 'whatever', status: 503 },
      { kind: 'transient', status: 503 },
    ],
    [
      'invalid_scope',
      { error: 'invalid_scope', status: 400 },
      { kind: 'rejected', reason: 'oauth' },
    ],
    ['a bare 502', { status: 502 }, { kind: 'transient', reason: 'status', status: 502 }],
    ['a bare 400', { status: 400 }, { kind: 'rejected', reason: 'status' }],
    [
      'fetch failed',
      new TypeError('fetch failed', {
        cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
      }),
      { kind: 'transient', reason: 'network' },
    ],
    [
      'ECONNRESET',
      Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
      { kind: 'transient', reason: 'network' },
    ],
    [
      'a timeout',
      new DOMException('late', 'TimeoutError'),
      { kind: 'transient', reason: 'timeout' },
    ],
    [
      'CONNECT_FAILED',
      new McpHostError('CONNECT_FAILED', 'no'),
      { kind: 'transient', reason: 'network' },
    ],
    [
      'HTTP_STATUS 429',
      new McpHostError('HTTP_STATUS', 'no', { details: { status: 429 } }),
      { kind: 'transient', status: 429 },
    ],
    ['anything else', new Error('weird'), { kind: 'rejected', reason: 'rejected' }],
    ['a string', 'nope', { kind: 'rejected' }],
  ])('%s', (_name, error, expected) => {
    expect(classifyRefreshFailure(error)).toMatchObject(expected);
  });

  it('reads oauth4webapi errors: a non-JSON 503 keeps its status, Retry-After is honoured', async () => {
    const as = { issuer: 'https://as.example', token_endpoint: 'https://as.example/token' };
    const client = { client_id: 'c' };
    const failure = await oauth
      .processRefreshTokenResponse(as, client, response(503, { 'retry-after': '2' }))
      .then(
        () => undefined,
        (e: unknown) => classifyRefreshFailure(e),
      );
    expect(failure).toMatchObject({ kind: 'transient', status: 503, retryAfterMs: 2000 });
    const body = new Response(JSON.stringify({ error: 'invalid_grant' }), {
      status: 400,
      headers: { 'content-type': 'application/json' },
    });
    const grant = await oauth.processRefreshTokenResponse(as, client, body).then(
      () => undefined,
      (e: unknown) => classifyRefreshFailure(e),
    );
    expect(grant).toMatchObject({ kind: 'invalid_grant', status: 400 });
  });

  it('retryAfterMs reads seconds and HTTP dates', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});
