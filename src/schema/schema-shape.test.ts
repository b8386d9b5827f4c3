import { describe, expect, it } from 'vitest';
import { createSchemaValidator } from './schema-validator.js';
import {
  fixtureSchemas,
  mutatedSchemas,
  specSchemas,
  type CorpusEntry,
} from '../../test/helpers/schema-corpus.js';

const draft07 = 'http://json-schema.org/draft-07/schema#';
const draft2019 = 'https://json-schema.org/draft/2019-09/schema';

/** One schema per rule of the structural check, usable or not. */
const keywordCases: readonly unknown[] = [
  true,
  false,
  {},
  { type: 'string' },
  { type: ['string', 'null'] },
  { type: 42 },
  { type: 'text' },
  { type: [] },
  { type: ['string', 'string'] },
  { type: '' },
  { properties: { a: { type: 'string' } } },
  { properties: { a: 1 } },
  { properties: [] },
  { patternProperties: { '^a': { type: 'string' } } },
  { patternProperties: { '[': { type: 'string' } } },
  { patternProperties: { '(?=a)': { type: 'string' } } },
  { patternProperties: { '[': {} }, additionalProperties: false },
  { patternProperties: { '[': {} }, additionalProperties: true },
  { $schema: draft07, patternProperties: { '[': {} } },
  { $defs: { a: { type: 'string' } } },
  { $defs: { a: { type: 42 } } },
  { definitions: { a: 'x' } },
  { dependentSchemas: { a: { required: ['b'] } } },
  { dependentSchemas: { a: 1 } },
  { items: { type: 'string' } },
  { items: [{ type: 'string' }] },
  { items: [] },
  { $schema: draft07, items: [{ type: 'string' }], additionalItems: false },
  { $schema: draft07, items: [] },
  { $schema: draft2019, items: [{ type: 'string' }] },
  { prefixItems: [{ type: 'string' }] },
  { prefixItems: [] },
  { allOf: [] },
  { anyOf: [{}, { type: 42 }] },
  { oneOf: {} },
  { required: ['a', 'b'] },
  { required: ['a', 'a'] },
  { required: [1] },
  { required: [] },
  { minLength: 0 },
  { minLength: -1 },
  { maxItems: 1.5 },
  { minProperties: '1' },
  { maxContains: 2 },
  { minimum: 0, maximum: 10, exclusiveMinimum: 0, exclusiveMaximum: 10 },
  { minimum: '0' },
  { multipleOf: 0 },
  { multipleOf: 0.5 },
  { uniqueItems: 'yes' },
  { enum: ['a', 1, null] },
  { enum: [] },
  { enum: 'a' },
  { enum: ['a', 'a'] },
  { $schema: draft07, enum: ['a', 'a'] },
  {
    $schema: draft07,
    enum: [
      { a: 1, b: 2 },
      { b: 2, a: 1 },
    ],
  },
  { pattern: '^[a-z]+$' },
  { pattern: '[' },
  { pattern: '\\p{L}' },
  { pattern: 42 },
  { dependencies: { a: ['b'], c: { required: ['d'] } } },
  { dependencies: { a: ['b', 'b'] } },
  { dependencies: { a: 1 } },
  { dependentRequired: { a: ['b'] } },
  { dependentRequired: { a: 'b' } },
  { $ref: '#/$defs/a', $defs: { a: { type: 'string' } } },
  { $ref: '#/$defs/missing' },
  { $ref: '#' },
  { properties: { self: { $ref: '#' } } },
  { $ref: 42 },
  { $ref: 'https://example.com/schema.json' },
  {
    $id: 'https://example.com/root.json',
    $ref: 'https://example.com/root.json#/$defs/a',
    $defs: { a: {} },
  },
  { $id: 'a#b' },
  { $defs: { a: { $id: 'https://x.test/a' }, b: { $id: 'https://x.test/a' } } },
  { $defs: { a: { $anchor: 'a' } }, $ref: '#a' },
  { $defs: { a: { $anchor: '1a' } } },
  { $defs: { a: { $anchor: 'a' }, b: { $anchor: 'a' } } },
  { $anchor: 'a', properties: { x: { $ref: '#a' } } },
  { $dynamicRef: '#meta' },
  { $dynamicRef: 'meta' },
  { $recursiveRef: '#' },
  { $recursiveAnchor: true },
  { $recursiveAnchor: 'a' },
  { $schema: draft2019, $recursiveAnchor: true },
  { $vocabulary: { 'https://x.test/v': true } },
  { $vocabulary: { 'https://x.test/v': 1 } },
  { nullable: true },
  { type: 'string', nullable: true },
  { type: 'null', nullable: false },
  { type: 'string', nullable: 'yes' },
  { id: 'x' },
  {
    $schema: 'http://json-schema.org/draft-04/schema#',
    id: 'x',
    maximum: 1,
    exclusiveMaximum: true,
  },
  { format: 'email' },
  { format: 5 },
  { title: 5 },
  { examples: 'x' },
  { readOnly: 'no' },
  { deprecated: 1 },
  { if: { enum: [] } },
  { if: { enum: [] }, then: { type: 'string' } },
  { then: { enum: [] } },
  { contains: { type: 'string' }, minContains: 0 },
  { unevaluatedProperties: false },
  { unevaluatedItems: 1 },
  { contentSchema: { type: 42 } },
  { $comment: 1 },
  { $schema: draft07, $defs: { a: 5 }, properties: { p: { $ref: '#/$defs/a' } } },
  { $schema: draft07, $defs: { a: null }, properties: { p: { $ref: '#/$defs/a' } } },
  { 'x-custom': { type: 42 } },
];

/**
 * The deliberate leniencies: schemas the structural check lets through that ajv's compiler
 * refuses. Each is unusable only in a place the listing does not look, and fails when the tool is
 * first called instead (see docs/architecture.md, "Tool schemas").
 */
const lenientCases: readonly [string, unknown][] = [
  [
    'a `patternProperties` key that is not a regex, when all its subschemas accept anything (2019-09, 2020-12)',
    { patternProperties: { '[': {} } },
  ],
  [
    'the same with a subschema of unknown keywords only (it accepts anything too)',
    { patternProperties: { '[': {}, $recursiveRef: { a: ['b'] } } },
  ],
];

const validator = createSchemaValidator();

/** The keywords of JSON Schema (draft-04 to 2020-12) that constrain or shape what they apply to. */
const SCHEMA_KEYWORDS = new Set(
  (
    '$ref $dynamicRef $recursiveRef $defs definitions type enum const multipleOf maximum ' +
    'exclusiveMaximum minimum exclusiveMinimum maxLength minLength pattern format maxItems ' +
    'minItems uniqueItems maxContains minContains contains items prefixItems additionalItems ' +
    'unevaluatedItems maxProperties minProperties required dependentRequired dependencies ' +
    'properties patternProperties additionalProperties unevaluatedProperties propertyNames ' +
    'dependentSchemas allOf anyOf oneOf not if then else contentSchema nullable'
  ).split(' '),
);

/** Whether a subschema accepts anything: `true`, `{}`, or an object of no known keyword. */
function acceptsAnything(item: unknown): boolean {
  if (item === true) return true;
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return false;
  return Object.keys(item).every((key) => !SCHEMA_KEYWORDS.has(key));
}

/** Whether `schema` has the leniency above: a `patternProperties` whose subschemas accept anything. */
function hasLenientPatternProperties(node: unknown): boolean {
  if (typeof node !== 'object' || node === null) return false;
  const patterns = (node as Record<string, unknown>).patternProperties;
  if (
    typeof patterns === 'object' &&
    patterns !== null &&
    Object.values(patterns).every(acceptsAnything)
  )
    return true;
  return Object.values(node).some(hasLenientPatternProperties);
}

async function disagreements(entries: readonly CorpusEntry[]): Promise<string[]> {
  const found: string[] = [];
  for (const { name, schema } of entries) {
    const shape = validator.check(schema);
    const compiled = await validator.compile(schema);
    const lenient =
      shape.ok &&
      !compiled.ok &&
      compiled.problem.startsWith('schema cannot be compiled: pattern ') &&
      hasLenientPatternProperties(schema);
    if (shape.ok !== compiled.ok && !lenient)
      found.push(
        `${name}: check ${shape.ok ? 'usable' : shape.problem}; compile ${compiled.ok ? 'usable' : compiled.problem}`,
      );
  }
  return found;
}

describe('SchemaValidator.check() against compile() (ajv)', () => {
  const spec = specSchemas();
  const fixtures = fixtureSchemas();

  it('finds the corpus it is meant to cover', () => {
    expect(spec.length).toBeGreaterThan(300);
    expect(fixtures.length).toBeGreaterThan(30);
  });

  it('agrees on every schema of the specification and the fixtures', async () => {
    expect(await disagreements([...spec, ...fixtures])).toEqual([]);
  });

  it('agrees on every keyword case', async () => {
    const entries = keywordCases.map((schema) => ({ name: JSON.stringify(schema), schema }));
    expect(await disagreements(entries)).toEqual([]);
  });

  it('agrees on 1,500 seeded mutations of the usable ones', async () => {
    const bases: unknown[] = [];
    for (const { schema } of [...spec, ...fixtures, ...keywordCases.map((s) => ({ schema: s }))])
      if ((await validator.compile(schema)).ok) bases.push(schema);
    const mutants = [...mutatedSchemas(bases, 750, 12), ...mutatedSchemas(bases, 750, 2026)];
    expect(await disagreements(mutants)).toEqual([]);
  });

  it.each(lenientCases)('is deliberately lenient about %s', async (_name, schema) => {
    expect(hasLenientPatternProperties(schema)).toBe(true);
    expect(validator.check(schema)).toMatchObject({ ok: true });
    expect(await validator.compile(schema)).toMatchObject({
      ok: false,
      code: 'SCHEMA_INVALID',
      problem: expect.stringMatching(/^schema cannot be compiled: /) as unknown,
    });
  });
});

describe('SchemaValidator.check()', () => {
  it('reports problems in the form compile() does', () => {
    expect(validator.check({ type: 42 })).toEqual({
      ok: false,
      code: 'SCHEMA_INVALID',
      problem: expect.stringMatching(
        /^schema is not valid JSON Schema 2020-12: \/type must be equal to one of the allowed values/,
      ) as unknown,
    });
    expect(validator.check({ properties: { a: { minLength: -1 } } })).toMatchObject({
      problem: 'schema is not valid JSON Schema 2020-12: /properties/a/minLength must be >= 0',
    });
    expect(validator.check({ $schema: draft07, required: 'x' })).toMatchObject({
      problem: 'schema is not valid JSON Schema draft-07: /required must be array',
    });
    expect(validator.check({ $ref: '#/$defs/missing' })).toMatchObject({
      problem: expect.stringMatching(
        /^schema cannot be compiled: can't resolve reference #\/\$defs\/missing/,
      ) as unknown,
    });
    expect(validator.check({ enum: [] })).toMatchObject({
      problem: expect.stringMatching(
        /^schema cannot be compiled: enum must have non-empty array/,
      ) as unknown,
    });
  });

  it('reads a schema without $schema that is only valid draft-07 as draft-07, like compile()', () => {
    expect(validator.check({ items: [{ type: 'string' }] })).toEqual({
      ok: true,
      dialect: 'draft-07',
    });
    expect(validator.check({ type: 'string' })).toEqual({ ok: true, dialect: '2020-12' });
  });

  it('checks the limits first, with the codes compile() gives', () => {
    const small = createSchemaValidator({ maxDepth: 2, maxBytes: 40 });
    expect(small.check({ not: { not: {} } })).toMatchObject({ ok: false, code: 'SCHEMA_TOO_DEEP' });
    expect(small.check({ description: 'x'.repeat(50) })).toMatchObject({
      ok: false,
      code: 'SCHEMA_TOO_LARGE',
    });
    expect(small.check(7)).toMatchObject({ ok: false, code: 'SCHEMA_INVALID' });
  });

  it('gives the same frozen answer for the same schema object', () => {
    const schema = { type: 'object' };
    const first = validator.check(schema);
    expect(validator.check(schema)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });
});
