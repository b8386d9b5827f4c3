import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { McpHostError } from '../errors/mcp-host-error.js';
import { createSchemaValidator } from './schema-validator.js';
import { staticImportGraph } from '../../test/helpers/import-graph.js';

// Loading ajv or re2js fails in this file: whatever imports them eagerly cannot be imported here.
const loaded = vi.hoisted((): string[] => []);
vi.mock('ajv', () => {
  loaded.push('ajv');
  throw new Error('ajv is not available in this test');
});
vi.mock('re2js', () => {
  loaded.push('re2js');
  throw new Error('re2js is not available in this test');
});

const srcDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const staticGraph = (entry: string) => staticImportGraph(resolve(srcDir, entry));

describe('the validator is loaded lazily', () => {
  it('no static import path leads from the root entry or src/schema to ajv or re2js', () => {
    for (const entry of ['index.ts', 'schema/schema-validator.ts']) {
      const { files, external } = staticGraph(entry);
      expect([...external]).toEqual([]);
      expect(files).toContain(resolve(srcDir, 'schema/schema-validator.ts'));
      expect(files).not.toContain(resolve(srcDir, 'schema/ajv-engine.ts'));
      expect(files).not.toContain(resolve(srcDir, 'schema/re2-regexp.ts'));
    }
    const engine = staticGraph('schema/ajv-engine.ts').external;
    expect([...engine].sort()).toEqual(['ajv', 'ajv/dist/2019.js', 'ajv/dist/2020.js', 're2js']);
  });

  it('importing src/schema loads neither; the first compile() does, and a failed load is a typed error', async () => {
    const validator = createSchemaValidator({ maxDepth: 2 });
    expect(loaded).toEqual([]);
    // Refused before anything is loaded: no engine needed.
    expect(await validator.compile({ not: { not: {} } })).toMatchObject({
      code: 'SCHEMA_TOO_DEEP',
    });
    expect(loaded).toEqual([]);
    const error: unknown = await validator.compile({ type: 'string' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpHostError);
    expect(error).toMatchObject({
      code: 'INTERNAL',
      message: 'cannot load the JSON Schema validator (ajv, re2js)',
    });
    expect(loaded.length).toBeGreaterThan(0);
  });
});
