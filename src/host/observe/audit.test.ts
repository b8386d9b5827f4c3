import { describe, expect, it } from 'vitest';
import { MASK } from '../../errors/redact.js';
import {
  AUDIT_DIGEST_ALGORITHM,
  AuditRingSink,
  UNSERIALISABLE_ARGUMENTS,
  createAuditRecord,
  digestArguments,
  fnv1a64Hex,
  type AuditInput,
} from './audit.js';

/** FNV-1a 64 the obvious way: BigInt over TextEncoder's bytes. */
function referenceFnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}

const input = (overrides: Partial<AuditInput> = {}): AuditInput => ({
  time: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
  server: 'files',
  tool: 'mcp__files__read',
  arguments: { path: '/tmp/a.txt', limit: 10 },
  outcome: 'ok',
  durationMs: 12.5,
  ...overrides,
});

describe('fnv1a64Hex', () => {
  it('matches the published FNV-1a 64 test vectors', () => {
    expect(fnv1a64Hex('')).toBe('cbf29ce484222325');
    expect(fnv1a64Hex('a')).toBe('af63dc4c8601ec8c');
    expect(fnv1a64Hex('foobar')).toBe('85944171f73967e8');
  });

  it('hashes the UTF-8 bytes, like a byte-level implementation', () => {
    const samples = [
      'é',
      '€uro',
      '😀 emoji pair',
      'mixed ascii ÿ ߿ ࠀ ￿ 𐀀 􏿿',
      'lone \ud800 high',
      'lone \udc00 low',
      'ends high \ud83d',
      JSON.stringify({ key: 'value', n: [1, 2, 3] }),
      'x'.repeat(10_000),
    ];
    for (const text of samples) expect(fnv1a64Hex(text)).toBe(referenceFnv1a64(text));
  });
});

describe('createAuditRecord', () => {
  it('records who, what, when and how, with a digest instead of the arguments', () => {
    const record = createAuditRecord(input({ caller: 'agent-7' }));
    expect(record).toEqual({
      time: '2026-01-02T03:04:05.678Z',
      caller: 'agent-7',
      server: 'files',
      tool: 'mcp__files__read',
      argsDigest: fnv1a64Hex('{"limit":10,"path":"/tmp/a.txt"}'),
      argsDigestAlgorithm: AUDIT_DIGEST_ALGORITHM,
      outcome: 'ok',
      durationMs: 12.5,
    });
    expect(record.argsDigest).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(record)).not.toContain('/tmp/a.txt');
  });

  it('gives the same digest whatever the key order, and another for other values', () => {
    const a = createAuditRecord(
      input({ arguments: { b: { y: 1, x: [1, { q: 2, p: 3 }] }, a: 'é' } }),
    );
    const b = createAuditRecord(
      input({ arguments: { a: 'é', b: { x: [1, { p: 3, q: 2 }], y: 1 } } }),
    );
    const c = createAuditRecord(
      input({ arguments: { a: 'é', b: { x: [{ p: 3, q: 2 }, 1], y: 1 } } }),
    );
    expect(a.argsDigest).toBe(b.argsDigest);
    expect(a.argsDigest).not.toBe(c.argsDigest);
    expect(digestArguments({ b: 1, a: 2 })).toBe(digestArguments({ a: 2, b: 1 }));
    expect(digestArguments(undefined)).toBe(digestArguments({}));
  });

  it('reads when, who, what, how in that order, and leaves out the server of a native tool', () => {
    const record = createAuditRecord(input({ caller: 'a', errorCode: 'X', outcome: 'error' }));
    expect(Object.keys(record)).toEqual([
      'time',
      'caller',
      'server',
      'tool',
      'argsDigest',
      'argsDigestAlgorithm',
      'outcome',
      'durationMs',
      'errorCode',
    ]);
    expect('server' in createAuditRecord(input({ server: undefined }))).toBe(false);
  });

  it('adds errorCode only when given, and stamps now by default', () => {
    const before = Date.now();
    const record = createAuditRecord({
      server: 's',
      tool: 't',
      outcome: 'error',
      durationMs: 1,
      errorCode: 'PROCESS_EXITED',
    });
    expect(record.errorCode).toBe('PROCESS_EXITED');
    expect('caller' in record).toBe(false);
    expect(Date.parse(record.time)).toBeGreaterThanOrEqual(before - 1);
    expect('errorCode' in createAuditRecord(input())).toBe(false);
  });

  it('never throws for arguments without a JSON form', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    for (const args of [{ n: 1n }, cyclic, { f: Number.NaN }]) {
      const record = createAuditRecord(input({ arguments: args }), { includeArguments: true });
      expect(record.argsDigest).toBe(UNSERIALISABLE_ARGUMENTS);
      expect('arguments' in record).toBe(false);
    }
  });

  it('includes the arguments only on request, redacted and capped', () => {
    const secret = 'sk-ant-abcdefghijklmnopqrstuvwxyz012345';
    const args = { query: 'weather', api_key: 'hunter2-hunter2', auth: `Bearer ${secret}` };
    expect('arguments' in createAuditRecord(input({ arguments: args }))).toBe(false);
    const record = createAuditRecord(input({ arguments: args }), { includeArguments: true });
    expect(record.arguments).toContain('"query":"weather"');
    expect(record.arguments).toContain(MASK);
    expect(record.arguments).not.toContain('hunter2');
    expect(record.arguments).not.toContain(secret);
    const long = createAuditRecord(input({ arguments: { text: 'x'.repeat(10_000) } }), {
      includeArguments: true,
      maxArgumentChars: 100,
    });
    expect(long.arguments).toHaveLength(100);
    expect(long.arguments?.endsWith('…')).toBe(true);
  });

  it('takes a replacement digest', () => {
    const record = createAuditRecord(input(), {
      digest: { algorithm: 'length', digest: (json) => json.length.toString(16) },
    });
    expect(record).toMatchObject({ argsDigest: '20', argsDigestAlgorithm: 'length' });
  });
});

describe('AuditRingSink', () => {
  it('keeps the last records, oldest first, and counts what it dropped', () => {
    const ring = new AuditRingSink(3);
    const { sink } = ring;
    for (let index = 0; index < 5; index++) sink(createAuditRecord(input({ durationMs: index })));
    expect(ring.size).toBe(3);
    expect(ring.dropped).toBe(2);
    expect(ring.records().map((record) => record.durationMs)).toEqual([2, 3, 4]);
    ring.clear();
    expect(ring.records()).toEqual([]);
    sink(createAuditRecord(input({ durationMs: 9 })));
    expect(ring.records().map((record) => record.durationMs)).toEqual([9]);
    expect(ring.dropped).toBe(0);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new AuditRingSink(0)).toThrow(RangeError);
    expect(() => new AuditRingSink(1.5)).toThrow(RangeError);
  });
});
