/**
 * The schema normalisers over every tool schema of the official reference servers (everything,
 * filesystem, memory; listed live over stdio) and over a corpus of hostile schemas
 * (test/fixtures/schemas/hostile): for each of the four providers, the output follows that
 * provider's rules as checked by an independent validator (test/helpers/provider-schema-rules.ts),
 * nothing throws, the input is left unchanged, and every diagnostic names the tool and the change.
 * The normalised schemas of the reference tools still accept sample arguments the originals accept.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  normaliseToolSchema,
  type NormalisedSchema,
  type SchemaProvider,
} from '../../src/agents/schemas/normalise-tool-schema.js';
import type { JsonObject } from '../../src/jsonrpc/message.js';
import { createSchemaValidator } from '../../src/schema/schema-validator.js';
import { connectScript } from '../helpers/mcp-servers.js';
import {
  anthropicViolations,
  geminiViolations,
  openAiStrictViolations,
  openAiViolations,
} from '../helpers/provider-schema-rules.js';
import { tempDir, type TempDir } from '../helpers/scratch.js';

const require = createRequire(import.meta.url);
const hostileDir = fileURLToPath(new URL('../fixtures/schemas/hostile/', import.meta.url));
const providers: SchemaProvider[] = ['openai-strict', 'openai', 'anthropic', 'gemini'];

interface ToolSchema {
  name: string;
  schema: JsonObject;
}

const hostile: ToolSchema[] = readdirSync(hostileDir)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => ({
    name: `hostile_${file.slice(0, -5)}`,
    schema: JSON.parse(readFileSync(join(hostileDir, file), 'utf8')) as JsonObject,
  }));

let dir: TempDir;
const reference: ToolSchema[] = [];

beforeAll(async () => {
  dir = tempDir();
  const started = [
    ['everything', '@modelcontextprotocol/server-everything/dist/index.js', ['stdio'], {}],
    ['filesystem', '@modelcontextprotocol/server-filesystem/dist/index.js', [dir.path], {}],
    [
      'memory',
      '@modelcontextprotocol/server-memory/dist/index.js',
      [],
      { MEMORY_FILE_PATH: join(dir.path, 'memory.jsonl') },
    ],
  ] as const;
  // One at a time: each is closed (and checked for leaks) once its tools are listed.
  for (const [name, entry, args, env] of started) {
    await using server = await connectScript(name, require.resolve(entry), args, { env });
    const { tools } = await server.client.listTools();
    for (const tool of tools)
      reference.push({ name: `${name}_${tool.name}`, schema: tool.inputSchema });
  }
});

afterAll(() => {
  dir[Symbol.dispose]();
});

const validator = createSchemaValidator();

/** What the provider's rules say of the output; JSON Schema outputs must also be valid schemas. */
function violations(provider: SchemaProvider, result: NormalisedSchema): string[] {
  if (provider === 'gemini') return geminiViolations(result.schema);
  const shape = validator.check(result.schema);
  const invalid = shape.ok ? [] : [`not a valid JSON Schema: ${shape.problem}`];
  if (provider === 'anthropic') return [...invalid, ...anthropicViolations(result.schema)];
  if (provider === 'openai-strict' && result.strict)
    return [...invalid, ...openAiStrictViolations(result.schema)];
  return [...invalid, ...openAiViolations(result.schema)];
}

/** Normalises every schema for every provider, checking the rules that hold for any input. */
function normaliseAll(corpus: ToolSchema[]): Map<string, NormalisedSchema> {
  const results = new Map<string, NormalisedSchema>();
  for (const { name, schema } of corpus)
    for (const provider of providers) {
      const before = JSON.stringify(schema);
      const result = normaliseToolSchema(name, schema, provider);
      expect(JSON.stringify(schema), `${name} ${provider} left its input alone`).toBe(before);
      expect(violations(provider, result), `${name} ${provider}`).toEqual([]);
      if (provider !== 'openai-strict') expect(result.strict).toBe(false);
      else if (!result.strict)
        expect(
          result.diagnostics.some((d) => d.change === 'kept-non-strict'),
          `${name}: says why it is not strict`,
        ).toBe(true);
      for (const diagnostic of result.diagnostics) {
        expect(diagnostic.tool).toBe(name);
        expect(diagnostic.provider).toBe(provider);
        expect(diagnostic.message).toContain(`tool '${name}'`);
        expect(diagnostic.change).toMatch(/^[a-z-]+$/);
        expect(diagnostic.path === '' || diagnostic.path.startsWith('/')).toBe(true);
        expect(diagnostic.change).not.toBe('unprocessable');
      }
      results.set(`${name} ${provider}`, result);
    }
  return results;
}

function changes(result: NormalisedSchema | undefined): string[] {
  return (result?.diagnostics ?? []).map((d) => d.change);
}

describe('schema normalisers over the reference servers', () => {
  it('lists the tools of all three servers', () => {
    const names = reference.map((tool) => tool.name);
    expect(names).toContain('everything_echo');
    expect(names).toContain('filesystem_edit_file');
    expect(names).toContain('memory_create_entities');
  });

  it('gives every tool a schema each provider accepts, all of them strict for OpenAI', () => {
    const results = normaliseAll(reference);
    for (const { name } of reference)
      expect(results.get(`${name} openai-strict`)?.strict, name).toBe(true);
    const edit = results.get('filesystem_edit_file openai-strict');
    expect(edit?.schema.required).toEqual(['path', 'edits', 'dryRun']);
    expect(changes(edit)).toContain('made-required-nullable');
    const gzip = results.get('everything_gzip-file-as-resource gemini');
    expect(gzip?.diagnostics.find((d) => d.path === '/properties/data')?.change).toBe(
      'dropped-keyword',
    );
  });

  it('still accepts the arguments the original schemas accept', async () => {
    for (const { name, schema } of reference) {
      const original = await validator.compile(schema);
      if (!original.ok) throw new Error(`${name}: ${original.problem}`);
      for (const args of sampleArguments(schema)) {
        expect(original.validate(args).valid, `${name} sample ${JSON.stringify(args)}`).toBe(true);
        for (const provider of ['openai-strict', 'openai', 'anthropic'] as const) {
          const normalised = normaliseToolSchema(name, schema, provider);
          const compiled = await validator.compile(normalised.schema);
          if (!compiled.ok) throw new Error(`${name} ${provider}: ${compiled.problem}`);
          const sent = provider === 'openai-strict' ? withNulls(args, normalised.schema) : args;
          const verdict = compiled.validate(sent);
          expect(verdict.valid, `${name} ${provider} ${JSON.stringify(sent)}`).toBe(true);
        }
      }
    }
  });
});

describe('schema normalisers over hostile schemas', () => {
  let results: Map<string, NormalisedSchema>;
  beforeAll(() => {
    results = normaliseAll(hostile);
  });
  const get = (name: string, provider: SchemaProvider): NormalisedSchema | undefined =>
    results.get(`hostile_${name} ${provider}`);
  const reasons = (name: string): string =>
    (get(name, 'openai-strict')?.diagnostics ?? [])
      .filter((d) => d.change === 'kept-non-strict')
      .map((d) => d.message)
      .join('\n');

  it('covers the corpus', () => {
    expect(hostile.length).toBeGreaterThanOrEqual(30);
  });

  it('keeps recursion as $defs references in strict mode and cuts it for Gemini and Anthropic', () => {
    const strict = get('recursive-ref', 'openai-strict');
    expect(strict?.strict).toBe(true);
    expect(JSON.stringify(strict?.schema)).toContain('"$ref":"#/$defs/Node"');
    expect(changes(get('recursive-ref', 'anthropic'))).toContain('cut-ref');
    expect(changes(get('recursive-ref', 'gemini'))).toContain('cut-ref');
    expect(changes(get('mutual-recursion', 'anthropic'))).toContain('cut-ref');
    expect(get('recursive-root-ref', 'openai-strict')?.strict).toBe(true);
  });

  it('bounds the expansion of references that multiply', () => {
    const gemini = get('ref-explosion', 'gemini');
    expect(changes(gemini)).toContain('cut-ref');
    expect(JSON.stringify(gemini?.schema).length).toBeLessThan(5_000_000);
  });

  it('rewrites oneOf as anyOf only where the variants cannot overlap', () => {
    expect(get('one-of-objects', 'openai-strict')?.strict).toBe(true);
    expect(changes(get('one-of-objects', 'openai-strict'))).toContain('one-of-to-any-of');
    expect(get('one-of-types', 'openai-strict')?.strict).toBe(true);
    expect(get('one-of-overlapping', 'openai-strict')?.strict).toBe(false);
    expect(reasons('one-of-overlapping')).toContain('oneOf');
  });

  it('falls back to non-strict past the limits, saying which', () => {
    expect(reasons('huge-enum')).toContain('more than 1000 enum values');
    expect(reasons('deep-nesting')).toContain('more than 10 levels');
    expect(reasons('many-properties')).toContain('more than 5000 properties');
    expect(reasons('pattern-properties')).toContain('map');
    expect(reasons('remote-ref')).toContain('does not resolve');
    expect(reasons('free-form')).toContain('free-form object');
    expect(reasons('tuple')).toContain('tuple');
    expect(reasons('all-of-unmergeable')).toContain('allOf');
    expect(reasons('non-object-root')).toContain('not an object schema');
    expect(reasons('root-any-of')).toContain('union');
  });

  it('rewrites what strict mode cannot take and stays strict where it can', () => {
    for (const name of [
      'all-of',
      'not',
      'if-then-else',
      'definitions-ref',
      'non-root-ref',
      'nested-defs-ref',
      'root-ref',
      'missing-type',
      'missing-root-type-no-properties',
      'type-arrays',
      'nullable-any-of',
      'proto-keys',
      'anchor-ref',
      'pattern-properties-with-properties',
      'dynamic-ref',
    ])
      expect(get(name, 'openai-strict')?.strict, name).toBe(true);
    expect(changes(get('not', 'openai-strict'))).toContain('dropped-keyword');
    expect(changes(get('all-of', 'openai-strict'))).toContain('merged-all-of');
    expect(get('definitions-ref', 'openai-strict')?.schema.$defs).toHaveProperty('Address');
    expect(changes(get('definitions-ref', 'openai-strict'))).toContain('moved-definitions');
    expect(get('root-ref', 'openai-strict')?.schema.properties).toHaveProperty('x');
    expect(get('missing-root-type-no-properties', 'openai-strict')?.schema).toMatchObject({
      type: 'object',
      properties: {},
    });
  });

  it('gives Gemini nullable, one-value enums and inclusive bounds', () => {
    const gemini = get('nullable-any-of', 'gemini')?.schema as {
      properties: Record<string, unknown>;
    };
    expect(gemini.properties.v).toEqual({ type: 'string', nullable: true });
    expect(gemini.properties.c).toMatchObject({ enum: ['fixed'] });
    expect(gemini.properties.n).toMatchObject({ type: 'number', minimum: 0, maximum: 1 });
    expect(changes(get('remote-ref', 'gemini'))).toContain('removed-ref');
  });
});

/** Arguments an original schema accepts: the required properties only, and every property. */
function sampleArguments(schema: JsonObject): JsonObject[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((schema.required ?? []) as string[]);
  const minimal: JsonObject = {};
  const full: JsonObject = {};
  for (const [name, property] of Object.entries(properties)) {
    const value = sampleValue(property);
    full[name] = value;
    if (required.has(name)) minimal[name] = value;
  }
  return [minimal, full];
}

function sampleValue(schema: JsonObject): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  switch (schema.type) {
    case 'string':
      return schema.format === 'uri' ? 'https://example.com/a' : 'text';
    case 'number':
    case 'integer':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return [sampleValue((schema.items ?? {}) as JsonObject)];
    case 'object': {
      const [, full] = sampleArguments(schema);
      return full;
    }
    default:
      return null;
  }
}

/** `args` with every property the strict schema lists but `args` lacks set to `null`, nested too. */
function withNulls(args: unknown, schema: unknown): unknown {
  if (typeof args !== 'object' || args === null) return args;
  const node = schema as JsonObject;
  if (Array.isArray(args)) return args.map((item) => withNulls(item, node.items));
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  const out: JsonObject = {};
  for (const name of Object.keys(properties))
    out[name] = name in args ? withNulls((args as JsonObject)[name], properties[name]) : null;
  return out;
}
