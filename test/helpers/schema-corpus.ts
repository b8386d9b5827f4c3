/**
 * Schemas to hold `SchemaValidator.check()` to ajv's verdict (`compile()`): every schema in the
 * specification (../shared/mcp-spec: the examples' tool, elicitation and primitive schemas, and
 * each definition of each revision's schema.json), every object literal written after
 * `inputSchema:` or `outputSchema:` in the test fixtures and tests, and schemas mutated from
 * those by a seeded generator (the same list on every run).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { seededRandom } from './seeded-random.js';

const repoDir = fileURLToPath(new URL('../../', import.meta.url));
const specDir = fileURLToPath(new URL('../../../shared/mcp-spec/', import.meta.url));

export interface CorpusEntry {
  readonly name: string;
  readonly schema: unknown;
}

function files(dir: string, keep: (name: string) => boolean): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') found.push(...files(path, keep));
    } else if (keep(entry.name)) found.push(path);
  }
  return found.sort();
}

const schemaKeys = new Set(['inputSchema', 'outputSchema', 'requestedSchema']);

function schemasInside(value: unknown, name: string, out: CorpusEntry[]): void {
  if (typeof value !== 'object' || value === null) return;
  for (const [key, child] of Object.entries(value)) {
    if (schemaKeys.has(key) && typeof child === 'object' && child !== null)
      out.push({ name: `${name} ${key}`, schema: child });
    schemasInside(child, name, out);
  }
}

/** The specification's schemas: examples, and each definition of each schema.json. */
export function specSchemas(): CorpusEntry[] {
  const out: CorpusEntry[] = [];
  for (const path of files(specDir, (name) => name.endsWith('.json'))) {
    const name = path.slice(specDir.length);
    const json = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (name.endsWith('schema.json') && typeof json === 'object' && json !== null) {
      const document = json as Record<string, unknown>;
      out.push({ name, schema: document });
      const definitions = (document.$defs ?? document.definitions) as Record<string, unknown>;
      for (const [key, definition] of Object.entries(definitions ?? {}))
        out.push({ name: `${name} ${key}`, schema: definition });
      continue;
    }
    if (/Schema\/[^/]+\.json$/.test(name)) out.push({ name, schema: json });
    schemasInside(json, name, out);
  }
  return out;
}

/** Object literals after `inputSchema:`/`outputSchema:` in fixtures and tests that evaluate alone. */
export function fixtureSchemas(): CorpusEntry[] {
  const out: CorpusEntry[] = [];
  const sources = [
    ...files(join(repoDir, 'test'), (name) => /\.(m?js|ts)$/.test(name)),
    ...files(join(repoDir, 'src'), (name) => name.endsWith('.test.ts')),
  ];
  for (const path of sources) {
    const text = readFileSync(path, 'utf8');
    for (const match of text.matchAll(/\b(?:inputSchema|outputSchema)\s*:\s*\{/g)) {
      const start = match.index + match[0].length - 1;
      const literal = balanced(text, start);
      if (literal === undefined || !/^[\s\w{}[\]:,'"`.\-+#/$^*?()|\\]*$/.test(literal)) continue;
      try {
        // Only literals, in an empty context: anything naming a variable throws and is skipped.
        // (Made again in this realm: the context's objects have its own Object.prototype.)
        const schema = JSON.parse(
          JSON.stringify(runInNewContext(`(${literal})`, {}, { timeout: 100 })),
        ) as unknown;
        out.push({ name: `${path.slice(repoDir.length)}@${start}`, schema });
      } catch {
        continue;
      }
    }
  }
  return out;
}

function balanced(text: string, start: number): string | undefined {
  let depth = 0;
  let quote: string | undefined;
  for (let index = start; index < text.length && index - start < 4000; index++) {
    const char = text[index]!;
    if (quote !== undefined) {
      if (char === '\\') index++;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === '"' || char === "'" || char === '`') quote = char;
    else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return text.slice(start, index + 1);
  }
  return undefined;
}

const keywords = [
  'type',
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'items',
  'prefixItems',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'required',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'uniqueItems',
  'enum',
  'const',
  'pattern',
  'dependencies',
  'dependentRequired',
  '$ref',
  '$id',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$recursiveRef',
  '$recursiveAnchor',
  'additionalProperties',
  'additionalItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'contains',
  'format',
  'title',
  'description',
  'examples',
  'default',
  'readOnly',
  'writeOnly',
  'deprecated',
  '$comment',
  'nullable',
  'id',
  '$vocabulary',
  'contentSchema',
  'contentMediaType',
];

const values: readonly unknown[] = [
  42,
  -1,
  0,
  1,
  1.5,
  1e300,
  'x',
  '',
  'string',
  'object',
  '#',
  '#/nope',
  '#/$defs/a',
  '#a',
  '[',
  '^a+$',
  '(?=a)b',
  'a#b',
  true,
  false,
  null,
  [],
  [1],
  [1, 1],
  ['a'],
  ['a', 'a'],
  ['string'],
  ['string', 'null'],
  ['string', 'string'],
  [{}],
  [true, { type: 42 }],
  {},
  { type: 42 },
  { type: 'string' },
  { a: {} },
  { a: 1 },
  { a: ['b'] },
  { a: ['b', 'b'] },
  { '[': {} },
  { $ref: '#/nope' },
  { enum: [] },
  { id: 'x' },
  { nullable: true },
  { $anchor: 'a' },
];

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The objects of `schema` (the root included) in a fixed order: where a mutation may land. */
function objectsOf(node: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (Array.isArray(node)) for (const item of node) objectsOf(item, out);
  else if (typeof node === 'object' && node !== null) {
    out.push(node as Record<string, unknown>);
    for (const child of Object.values(node)) objectsOf(child, out);
  }
  return out;
}

/**
 * `count` schemas made from `bases` by one to three mutations each: a keyword of some object in
 * the schema set (or replaced) with a value of some other type, or removed.
 */
export function mutatedSchemas(
  bases: readonly unknown[],
  count: number,
  seed: number,
): CorpusEntry[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const out: CorpusEntry[] = [];
  const objectBases = bases.filter((base) => typeof base === 'object' && base !== null);
  for (let index = 0; index < count; index++) {
    const schema = clone(pick(objectBases));
    const steps: string[] = [];
    const mutations = 1 + Math.floor(random() * 3);
    for (let step = 0; step < mutations; step++) {
      const target = pick(objectsOf(schema));
      const existing = Object.keys(target);
      const keyword = existing.length > 0 && random() < 0.5 ? pick(existing) : pick(keywords);
      if (random() < 0.1) {
        delete target[keyword];
        steps.push(`-${keyword}`);
      } else {
        const value = clone(pick(values));
        target[keyword] = value;
        steps.push(`${keyword}=${JSON.stringify(value)}`);
      }
    }
    out.push({ name: `mutant ${index} (${steps.join(', ')})`, schema });
  }
  return out;
}
