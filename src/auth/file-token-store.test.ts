import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/scratch.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { redact } from '../errors/redact.js';
import { MemoryStateStore, type StateStore } from '../state/state-store.js';
import { FileStateStore } from '../state/file-state-store.js';
import {
  FileTokenStore,
  REGISTRATIONS_NAMESPACE,
  TOKENS_NAMESPACE,
  tokenKeyString,
} from './file-token-store.js';

const key = { issuer: 'https://as.example', clientId: 'c1', resource: 'https://mcp.example/mcp' };

function fileStore() {
  const dir = tempDir();
  const path = join(dir.path, 'sub', 'state.json');
  const warnings: string[] = [];
  const store = new FileTokenStore({
    path,
    logger: {
      debug() {},
      info() {},
      error() {},
      warn: (message, fields) => {
        warnings.push(`${message} ${JSON.stringify(fields)}`);
      },
    },
  });
  return {
    store,
    path,
    warnings,
    async [Symbol.asyncDispose]() {
      await store.close();
      dir[Symbol.dispose]();
    },
  };
}

describe('FileTokenStore', () => {
  it('keeps tokens per (issuer, client, resource) and registrations per issuer, in a 0600 file', async () => {
    await using t = fileStore();
    expect(await t.store.loadTokens(key)).toBeUndefined();
    await t.store.saveTokens(key, {
      accessToken: 'at-canary-1111',
      tokenType: 'Bearer',
      refreshToken: 'rt-canary-2222',
      expiresAt: 5,
      scope: 'a b',
    });
    expect(statSync(t.path).mode & 0o777).toBe(0o600);
    const loaded = await t.store.loadTokens(key);
    expect(loaded).toMatchObject({
      accessToken: 'at-canary-1111',
      refreshToken: 'rt-canary-2222',
      expiresAt: 5,
      scope: 'a b',
    });
    expect(typeof loaded?.issuedAt).toBe('number'); // stamped when missing
    expect(
      await t.store.loadTokens({ ...key, resource: 'https://other.example/' }),
    ).toBeUndefined();
    await t.store.saveRegistration({
      issuer: key.issuer,
      clientId: 'c1',
      clientSecret: 'cs-canary-3333',
      source: 'dynamic',
      redirectUris: ['http://127.0.0.1/cb'],
    });
    await t.store.clearTokens(key);
    expect(await t.store.loadTokens(key)).toBeUndefined();
    expect(await t.store.loadRegistration(key.issuer)).toEqual({
      issuer: key.issuer,
      clientId: 'c1',
      clientSecret: 'cs-canary-3333',
      source: 'dynamic',
      redirectUris: ['http://127.0.0.1/cb'],
    });
    await t.store.clearRegistration(key.issuer);
    expect(await t.store.loadRegistration(key.issuer)).toBeUndefined();
    expect(statSync(t.path).mode & 0o777).toBe(0o600);
  });

  it('rewrites a file that was 0644 as 0600 at the first save', async () => {
    await using t = fileStore();
    await t.store.saveRegistration({ issuer: key.issuer, clientId: 'c1', source: 'configured' });
    chmodSync(t.path, 0o644);
    await t.store.saveTokens(key, { accessToken: 'at-canary-4444', tokenType: 'Bearer' });
    expect(statSync(t.path).mode & 0o777).toBe(0o600);
  });

  it('registers every token and secret with the redactor, and shows none in inspect or JSON', async () => {
    await using t = fileStore();
    await t.store.saveTokens(key, {
      accessToken: 'at-canary-5555',
      tokenType: 'Bearer',
      refreshToken: 'rt-canary-6666',
    });
    await t.store.saveRegistration({
      issuer: key.issuer,
      clientId: 'c1',
      clientSecret: 'cs-canary-7777',
      source: 'dynamic',
    });
    for (const secret of ['at-canary-5555', 'rt-canary-6666', 'cs-canary-7777'])
      expect(redact(`x ${secret} y`)).toBe('x <masked> y');
    for (const text of [inspect(t.store, { depth: 8, showHidden: true }), JSON.stringify(t.store)])
      for (const secret of ['at-canary-5555', 'rt-canary-6666', 'cs-canary-7777'])
        expect(text).not.toContain(secret);
  });

  it('registers tokens it only reads (written by another process)', async () => {
    await using t = fileStore();
    // Written straight into the state file, as another process would: never seen by our redactor.
    await using other = new FileStateStore({ path: t.path });
    await other.set(TOKENS_NAMESPACE, tokenKeyString(key), {
      accessToken: 'at-canary-8888',
      tokenType: 'Bearer',
    });
    expect(redact('at-canary-8888')).toBe('at-canary-8888');
    expect((await t.store.loadTokens(key))?.accessToken).toBe('at-canary-8888');
    expect(redact('at-canary-8888')).toBe('<masked>');
  });

  it('keeps the DPoP key of DPoP-bound tokens with them; its private part is a secret', async () => {
    await using t = fileStore();
    const dpopKey = {
      kty: 'EC',
      crv: 'P-256',
      x: 'x-coordinate-1',
      y: 'y-coordinate-1',
      d: 'dpop-private-canary-4242',
    } as const;
    // Written by another process: our redactor learns the private key when this store reads it.
    await using other = new FileStateStore({ path: t.path });
    await other.set(TOKENS_NAMESPACE, tokenKeyString(key), {
      accessToken: 'at-canary-4343',
      tokenType: 'DPoP',
      dpopKey,
    });
    expect(redact(dpopKey.d)).toBe(dpopKey.d);
    expect((await t.store.loadTokens(key))?.dpopKey).toEqual(dpopKey);
    expect(redact(dpopKey.d)).toBe('<masked>');
    // Cleared with the tokens; a malformed key is dropped (the tokens then have none).
    await t.store.clearTokens(key);
    expect(await other.get(TOKENS_NAMESPACE, tokenKeyString(key))).toBeUndefined();
    await other.set(TOKENS_NAMESPACE, tokenKeyString(key), {
      accessToken: 'at-canary-4444',
      tokenType: 'DPoP',
      dpopKey: { kty: 'RSA', n: 'n', e: 'AQAB' },
    });
    expect((await t.store.loadTokens(key))?.dpopKey).toBeUndefined();
  });

  it('ignores malformed records with a warning that names the key, never a value', async () => {
    await using t = fileStore();
    await t.store.saveTokens(key, { accessToken: 'at-canary-9999', tokenType: 'Bearer' });
    const file = JSON.parse(readFileSync(t.path, 'utf8')) as {
      namespaces: Record<string, Record<string, unknown>>;
    };
    const name = Object.keys(file.namespaces[TOKENS_NAMESPACE]!)[0]!;
    file.namespaces[TOKENS_NAMESPACE]![name] = { accessToken: 'at-canary-9999', tokenType: 7 };
    file.namespaces[REGISTRATIONS_NAMESPACE] = {
      [key.issuer]: { issuer: key.issuer, clientId: 'c1', source: 'stolen' },
    };
    writeFileSync(t.path, JSON.stringify(file));
    expect(await t.store.loadTokens(key)).toBeUndefined();
    expect(await t.store.loadRegistration(key.issuer)).toBeUndefined();
    expect(t.warnings).toHaveLength(2);
    expect(t.warnings.join('\n')).toContain(key.issuer);
    expect(t.warnings.join('\n')).not.toContain('at-canary-9999');
  });

  it('refuses unusable keys and records with INVALID_ARGUMENT', async () => {
    await using t = fileStore();
    const bad = [
      t.store.loadTokens({ ...key, issuer: '' }),
      t.store.saveTokens(key, { accessToken: '', tokenType: 'Bearer' }),
      t.store.saveRegistration({
        issuer: key.issuer,
        clientId: 'c1',
        source: 'other' as 'dynamic',
      }),
      t.store.loadRegistration(''),
    ];
    for (const promise of bad) {
      const error = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(McpHostError);
      expect((error as McpHostError).code).toBe('INVALID_ARGUMENT');
    }
  });

  it('offers the state store’s lease per token key, and none on a store without leases', async () => {
    const memory = new MemoryStateStore();
    const store = new FileTokenStore({ stateStore: memory });
    const lease = await store.lease!(key, { ttlMs: 60_000 });
    expect(lease.generation).toBe(1);
    const other = await store.lease!({ ...key, clientId: 'c2' }, { ttlMs: 60_000, timeoutMs: 0 });
    await Promise.all([lease.release(), other.release()]);
    await store.close(); // not its store: stays open
    expect(await memory.get('x', 'y')).toBeUndefined();
    await memory.close();
    const withoutLease: StateStore = {
      get: memory.get.bind(memory),
      set: memory.set.bind(memory),
      delete: memory.delete.bind(memory),
      update: memory.update.bind(memory),
      entries: memory.entries.bind(memory),
    };
    expect(new FileTokenStore({ stateStore: withoutLease }).lease).toBeUndefined();
  });
});
