import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../test/helpers/seeded-random.js';
import type { JsonObject } from '../../jsonrpc/message.js';
import { normaliseToolSchema, type SchemaProvider } from './normalise-tool-schema.js';
import { MAX_DIAGNOSTICS } from './schema-diagnostics.js';

const providers: SchemaProvider[] = ['openai-strict', 'openai', 'anthropic', 'gemini'];

const sample: JsonObject = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    tags: { type: 'array', items: { $ref: '#/$defs/Tag' } },
    mode: { oneOf: [{ const: 'a' }, { const: 'b' }] },
  },
  required: ['name'],
  $defs: { Tag: { type: 'object', properties: { label: { type: 'string' } } } },
};

describe('normaliseToolSchema', () => {
  it('leaves its input unchanged and returns a fresh schema for every provider', () => {
    const before = JSON.stringify(sample);
    for (const provider of providers) {
      const result = normaliseToolSchema('t', sample, provider);
      expect(JSON.stringify(sample)).toBe(before);
      expect(result.schema).not.toBe(sample);
      expect(result.schema.type).toBe('object');
    }
  });

  it('is strict only for openai-strict', () => {
    expect(normaliseToolSchema('t', sample, 'openai-strict').strict).toBe(true);
    for (const provider of ['openai', 'anthropic', 'gemini'] as const)
      expect(normaliseToolSchema('t', sample, provider).strict).toBe(false);
  });

  it('falls back to the non-strict form for one tool, saying why', () => {
    const free = { type: 'object', properties: { meta: { type: 'object' } } };
    const result = normaliseToolSchema('free_tool', free, 'openai-strict');
    expect(result.strict).toBe(false);
    expect(result.schema).toEqual({ type: 'object', properties: { meta: { type: 'object' } } });
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        tool: 'free_tool',
        provider: 'openai-strict',
        path: '/properties/meta',
        change: 'kept-non-strict',
        message: expect.stringContaining("tool 'free_tool'") as unknown,
      }),
    ]);
    expect(result.diagnostics[0]?.message).toContain('free-form object');
  });

  it('gives an empty object schema for what it cannot process', () => {
    let deep: JsonObject = { type: 'string' };
    for (let i = 0; i < 200; i++) deep = { type: 'object', properties: { d: deep } };
    for (const input of [deep, [] as unknown as JsonObject, null as unknown as JsonObject]) {
      const result = normaliseToolSchema('odd', input, 'gemini');
      expect(result.schema).toEqual({ type: 'object', properties: {} });
      expect(result.diagnostics.map((d) => d.change)).toEqual(['unprocessable']);
    }
  });

  it('ignores what is not JSON (functions, cycles, undefined) in the input', () => {
    const cyclic: JsonObject = { type: 'object', properties: { a: { type: 'string' } } };
    (cyclic.properties as JsonObject).self = cyclic;
    (cyclic.properties as JsonObject).fn = () => 1;
    (cyclic.properties as JsonObject).u = undefined;
    for (const provider of providers) {
      const result = normaliseToolSchema('cyclic', cyclic, provider);
      expect(Object.keys(result.schema.properties as object)).toContain('a');
      expect(() => JSON.stringify(result.schema)).not.toThrow();
    }
  });

  it('lists at most MAX_DIAGNOSTICS diagnostics and counts the rest', () => {
    const properties: JsonObject = {};
    for (let i = 0; i < 300; i++) properties[`p${i}`] = { type: 'string', format: 'uri' };
    const result = normaliseToolSchema('many', { type: 'object', properties }, 'gemini');
    expect(result.diagnostics).toHaveLength(MAX_DIAGNOSTICS + 1);
    expect(result.diagnostics.at(-1)).toMatchObject({ change: 'more-changes' });
    expect(result.diagnostics.at(-1)?.message).toMatch(/\d+ more changes not listed/);
  });

  it('names the tool in every message, bounded and redacted', () => {
    const name = `x${'y'.repeat(500)}`;
    const result = normaliseToolSchema(name, { properties: { a: { type: 'string' } } }, 'openai');
    expect(result.diagnostics.length).toBeGreaterThan(0);
    for (const diagnostic of result.diagnostics) {
      expect(diagnostic.tool).toBe(name);
      expect(diagnostic.message.length).toBeLessThan(1024);
      expect(diagnostic.message).toContain("tool 'xyyy");
    }
  });

  it('never throws on mutated schemas (seeded)', () => {
    const random = seededRandom(15);
    const junk = [null, true, false, 0, -1, 1.5, '', 'x', [], {}, [1, 'a'], { $ref: '#' }];
    const keywords = [
      'type',
      'properties',
      'items',
      'anyOf',
      'oneOf',
      'allOf',
      '$ref',
      'enum',
      'const',
      'required',
      'additionalProperties',
      '$defs',
      'not',
      'format',
      'exclusiveMinimum',
      'nullable',
    ];
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const mutate = (node: unknown, depth: number): unknown => {
      if (depth > 6 || typeof node !== 'object' || node === null)
        return random() < 0.2 ? pick(junk) : node;
      if (Array.isArray(node)) return node.map((item) => mutate(item, depth + 1));
      const out: JsonObject = {};
      for (const [key, value] of Object.entries(node)) out[key] = mutate(value, depth + 1);
      if (random() < 0.4) out[pick(keywords)] = random() < 0.5 ? pick(junk) : { ...sample };
      if (random() < 0.1)
        out.$ref = pick(['#', '#/$defs/Tag', '#/properties', '#/nope', 'http://x/y', '#a']);
      return out;
    };
    for (let round = 0; round < 300; round++) {
      const schema = mutate(sample, 0) as JsonObject;
      for (const provider of providers) {
        const result = normaliseToolSchema(`fuzz${round}`, schema, provider);
        expect(result.schema.type).toBe('object');
        expect(result.diagnostics.map((d) => d.change)).not.toContain('unprocessable');
      }
    }
  });
});
