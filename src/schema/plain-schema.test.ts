import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/helpers/seeded-random.js';
import { fixtureSchemas, mutatedSchemas, specSchemas } from '../../test/helpers/schema-corpus.js';
import { plainSchemaDialect } from './plain-schema.js';
import { prepareSchema } from './prepare-schema.js';
import { checkSchemaShape } from './schema-shape.js';
import type { SchemaLimits } from './schema-walk.js';
import { defaultSchemaValidatorOptions } from './schema-validator.js';

const limits: SchemaLimits = defaultSchemaValidatorOptions;

/** The full check's answer (what SchemaValidator.check gave before the quick one). */
function fullCheck(schema: unknown, within: SchemaLimits = limits) {
  const prepared = prepareSchema(schema, within);
  return prepared.ok ? checkSchemaShape(prepared) : prepared;
}

/** Whenever the quick check takes a schema, the full check finds it usable, in the same dialect. */
function expectAgreement(schema: unknown, within: SchemaLimits = limits): boolean {
  const dialect = plainSchemaDialect(schema, within);
  if (dialect !== undefined)
    expect(fullCheck(schema, within), JSON.stringify(schema)).toEqual({ ok: true, dialect });
  return dialect !== undefined;
}

/** The root `$schema` values generated schemas carry now and then. */
const SCHEMA_URIS = [
  'http://json-schema.org/draft-07/schema#',
  'http://json-schema.org/draft-07/schema',
  'https://json-schema.org/draft/2020-12/schema',
  'http://json-schema.org/draft-04/schema#',
  'https://json-schema.org/draft/2019-09/schema',
  'http://example.com/my-schema',
  7,
];

/** How many of the first values of each keyword's list in `toolSchema` are valid and taken. */
const VALID: Record<string, number> = {
  type: 4,
  required: 3,
  enum: 2,
  const: 4,
  default: 5,
  examples: 2,
  title: 1,
  description: 1,
  $comment: 1,
  minimum: 2,
  maximum: 1,
  exclusiveMinimum: 1,
  multipleOf: 2,
  minLength: 2,
  maxItems: 1,
  uniqueItems: 1,
  readOnly: 1,
};

/** Everyday tool schemas, with now and then a value the meta-schema or the compiler refuses. */
function toolSchema(next: () => number, depth = 0, validOnly = false): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const values: Record<string, readonly unknown[]> = {
    type: [
      'string',
      'integer',
      'object',
      ['string', 'null'],
      [],
      ['x'],
      ['string', 'string'],
      7,
      'text',
    ],
    required: [['a'], [], ['a', 'b'], ['a', 'a'], [1], 'a'],
    enum: [['a', 'b'], [1, null], [], 'a', [{ x: [1] }]],
    const: ['x', 0, null, { a: [true] }],
    default: ['', 3.5, false, [], { nested: { deep: [1, 2] } }],
    examples: [['e'], [], 'e'],
    title: ['T', 1],
    description: ['what it does', null],
    $comment: ['c'],
    format: ['uri', 'date-time', 'nonsense'],
    minimum: [0, -1.5, '1'],
    maximum: [10, Number.NaN],
    exclusiveMinimum: [0, true],
    multipleOf: [2, 0.5, 0, -1],
    minLength: [0, 1, 1.5, -1],
    maxItems: [3, '3'],
    uniqueItems: [true, 'yes'],
    readOnly: [false],
    nullable: [true],
    pattern: ['^a', '['],
    $ref: ['#'],
    anyOf: [[{ type: 'string' }]],
  };
  const schema: Record<string, unknown> = {};
  for (const key of Object.keys(values)) {
    if (next() >= 0.18) continue;
    // The first values of each list are valid, the rest not (validOnly: the keywords taken here).
    const options = validOnly ? values[key]!.slice(0, VALID[key] ?? 0) : values[key]!;
    if (options.length > 0) schema[key] = pick(options);
  }
  if (depth < 3 && next() < 0.6) {
    const properties: Record<string, unknown> = {};
    const count = Math.floor(next() * 4);
    for (let i = 0; i < count; i++)
      properties[pick(['a', 'b', 'c d', '__proto__x', ''])] =
        next() < 0.1 ? next() < 0.5 : toolSchema(next, depth + 1, validOnly);
    schema.properties = next() < 0.05 && !validOnly ? [properties] : properties;
  }
  if (depth < 3 && next() < 0.2)
    schema.items = next() < 0.2 ? true : toolSchema(next, depth + 1, validOnly);
  if (depth < 3 && next() < 0.2)
    schema.additionalProperties = next() < 0.5 ? false : toolSchema(next, depth + 1, validOnly);
  // A root `$schema` (validOnly: the two dialects taken here), now and then a nested one.
  if ((depth === 0 && next() < 0.3) || (depth > 0 && next() < 0.03 && !validOnly))
    schema.$schema = pick(validOnly ? SCHEMA_URIS.slice(0, 3) : SCHEMA_URIS);
  return schema;
}

describe('plainSchemaDialect', () => {
  it('takes the everyday tool schemas', () => {
    for (const schema of [
      {},
      { type: 'object' },
      {
        type: 'object',
        properties: { text: { type: 'string', description: 'Text to echo' } },
        required: ['text'],
      },
      {
        type: 'object',
        properties: {
          path: { type: 'string', minLength: 1 },
          mode: { type: 'string', enum: ['r', 'w'], default: 'r' },
          lines: { type: 'array', items: { type: 'integer', minimum: 0 }, maxItems: 100 },
          options: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
        },
        required: ['path'],
        additionalProperties: false,
      },
    ])
      expect(expectAgreement(schema)).toBe(true);
  });

  it('agrees with the full check on member names JSON.parse makes own properties (__proto__)', () => {
    const schema: unknown = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{}},"required":["__proto__"]}',
    );
    expect(expectAgreement(schema)).toBe(true);
  });

  it('takes the schemas zod-to-json-schema makes, as draft-07', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { message: { type: 'string', description: 'Message to echo' } },
      required: ['message'],
      additionalProperties: false,
    };
    expect(plainSchemaDialect(schema, limits)).toBe('draft-07');
    expect(expectAgreement(schema)).toBe(true);
    // Every keyword taken here, under either dialect (the generated schemas leave some out).
    for (const $schema of SCHEMA_URIS.slice(0, 3))
      for (const [keyword, value] of Object.entries({
        deprecated: true,
        writeOnly: false,
        exclusiveMaximum: 3,
        maxLength: 2,
        minItems: 0,
        minProperties: 1,
        maxProperties: 4,
        examples: ['a'],
        const: 'a',
      }))
        expect(expectAgreement({ $schema, [keyword]: value }), `${$schema} ${keyword}`).toBe(true);
  });

  it('leaves everything else to the full check', () => {
    for (const schema of [
      true,
      null,
      [],
      { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' },
      { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object' },
      { type: 'object', properties: { a: { $schema: 'http://json-schema.org/draft-07/schema#' } } },
      { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: {} } },
      { type: 'string', pattern: '^a' },
      { type: 'string', format: 'uri' },
      { anyOf: [{ type: 'string' }] },
      { type: 'string', nullable: true },
      { type: 'object', 'x-vendor': true },
      { enum: [] },
      { required: ['a', 'a'] },
      { type: [] },
      { minimum: Number.POSITIVE_INFINITY },
      { default: new Date(0) },
      Object.assign(Object.create({ inherited: true }) as object, { type: 'object' }),
    ])
      expect(plainSchemaDialect(schema, limits), JSON.stringify(schema)).toBeUndefined();
  });

  it('agrees with the full check on generated tool schemas, valid and not', () => {
    const next = seededRandom(31);
    let taken = 0;
    for (let i = 0; i < 3000; i++) if (expectAgreement(toolSchema(next))) taken++;
    // Both kinds are exercised.
    expect(taken).toBeGreaterThan(100);
    expect(taken).toBeLessThan(2900);
    // Made of the keywords and values it knows, every one is taken here.
    for (let i = 0; i < 1000; i++) expect(expectAgreement(toolSchema(next, 0, true))).toBe(true);
  });

  it('agrees with the full check on the schema corpus and its mutants', () => {
    const corpus = [...specSchemas(), ...fixtureSchemas()].map((entry) => entry.schema);
    for (const schema of corpus) expectAgreement(schema);
    for (const { schema } of mutatedSchemas(corpus, 1500, 77)) expectAgreement(schema);
  });

  it('stays within the depth and size limits, leaving a schema near them to the full check', () => {
    const nested = {
      type: 'object',
      properties: { a: { type: 'object', properties: { b: { type: 'string' } } } },
    };
    // Root 1, properties 2, a 3, its properties 4, b 5.
    expect(expectAgreement(nested, { maxDepth: 5, maxBytes: 10_000 })).toBe(true);
    expect(expectAgreement(nested, { maxDepth: 4, maxBytes: 10_000 })).toBe(false);
    expect(expectAgreement({ required: [] }, { maxDepth: 1, maxBytes: 10_000 })).toBe(false);
    expect(expectAgreement({ default: { a: { b: {} } } }, { maxDepth: 3, maxBytes: 10_000 })).toBe(
      false,
    );
    const long = { type: 'string', description: 'x'.repeat(400) };
    expect(expectAgreement(long, { maxDepth: 64, maxBytes: 2_000 })).toBe(true);
    expect(expectAgreement(long, { maxDepth: 64, maxBytes: 1_000 })).toBe(false);
  });
});
