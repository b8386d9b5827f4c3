/** What a connection string names, for messages: host, port, database; its passwords kept apart. */
import { describe, expect, it } from 'vitest';
import { McpHostError } from '../errors/mcp-host-error.js';
import { parsePostgresTarget, toStoreError } from './postgres-target.js';

describe('parsePostgresTarget', () => {
  it.each([
    [
      'postgresql://app:p%40ss-word@db.internal:6543/fleet?sslmode=require',
      { host: 'db.internal', port: 6543, database: 'fleet', secrets: ['p@ss-word', 'p%40ss-word'] },
    ],
    [
      // Not valid percent-encoding: kept as written, not a URIError.
      'postgres://app:50%zz-off@db.internal/fleet',
      { host: 'db.internal', port: 5432, database: 'fleet', secrets: ['50%zz-off', '50%zz-off'] },
    ],
    [
      'postgres://db.internal/fleet?password=query-secret',
      { host: 'db.internal', port: 5432, database: 'fleet', secrets: ['query-secret'] },
    ],
    [
      'postgres://app@[::1]:5433',
      {
        host: '::1',
        port: 5433,
        database: 'app',
        where: "PostgreSQL state store '[::1]:5433/app'",
      },
    ],
    [
      "host=10.0.0.5 port=6000 dbname=fleet user=app password='it\\'s s3cret'",
      { host: '10.0.0.5', port: 6000, database: 'fleet', secrets: ["it's s3cret"] },
    ],
    [
      'user=app password=plain-secret',
      { host: 'localhost', database: 'app', secrets: ['plain-secret'] },
    ],
  ])('%s', (connectionString, expected) => {
    const target = parsePostgresTarget(connectionString);
    expect(target).toMatchObject(expected);
    for (const secret of target.secrets) expect(target.where).not.toContain(secret);
  });

  it('refuses what is not a connection string with INVALID_ARGUMENT, without quoting it', () => {
    for (const bad of [
      '',
      '   ',
      42,
      'mysql://u:canary-pw@h/db',
      'postgres://u:canary-pw@[bad/db',
    ]) {
      const error = (() => {
        try {
          parsePostgresTarget(bad);
        } catch (caught) {
          return caught as McpHostError;
        }
        throw new Error('accepted');
      })();
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).not.toContain('canary-pw');
    }
  });
});

describe('toStoreError', () => {
  const target = parsePostgresTarget('postgres://db.internal:6543/fleet');

  it('names the store, the operation and the errno or SQLSTATE', () => {
    const refused = toStoreError(
      target,
      'connect',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    );
    expect(refused.code).toBe('STATE_IO_FAILED');
    expect(refused.message).toBe(
      "PostgreSQL state store 'db.internal:6543/fleet': connect failed: connect ECONNREFUSED",
    );
    expect(refused.details).toMatchObject({ operation: 'connect', errno: 'ECONNREFUSED' });
    const sql = toStoreError(target, 'update', Object.assign(new Error('x'), { code: '40P01' }));
    expect(sql.details).toMatchObject({ sqlState: '40P01' });
    const typed = new McpHostError('STATE_CLOSED', 'closed');
    expect(toStoreError(target, 'get', typed)).toBe(typed);
  });
});
