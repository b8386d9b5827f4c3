import { preview } from '../errors/redact.js';
import type { SchemaProblem, SchemaProblemCode } from './schema-check.js';
import { toSchemaDialect, type SchemaDialect } from './schema-dialect.js';
import {
  describe,
  isPlainObject,
  PrepareFailure,
  rootBaseUri,
  SchemaWalk,
  type SchemaLimits,
} from './schema-walk.js';

/** A schema that is within the limits, with the internal copy the validator compiles. */
export interface PreparedSchema {
  readonly ok: true;
  /**
   * A deep copy of the schema for the compiler: `$ref`s that point outside the schema removed
   * (so they accept anything), the root `$schema` removed (the dialect is chosen here), draft-04
   * keywords converted. The caller's schema is never changed.
   */
  readonly copy: Record<string, unknown> | boolean;
  /** The schema's JSON text (`JSON.stringify` of the original), the basis of the cache key. */
  readonly text: string;
  readonly dialect: SchemaDialect;
  /** True when the dialect was not named by a known `$schema` and 2020-12 was assumed. */
  readonly dialectAssumed: boolean;
  readonly externalRefs: readonly string[];
  readonly warnings: readonly string[];
  /** The `patternProperties` objects of the copy, for the compiler to adjust. */
  readonly patternPropertyMaps: readonly Record<string, unknown>[];
}
/**
 * Checks a schema sent by an untrusted server against the limits and makes the internal copy
 * the compiler uses. Works in one bounded walk: it stops as soon as the depth or size limit is
 * passed, so a huge or deeply nested schema costs no more than the limit. Never throws.
 */
export function prepareSchema(
  schema: unknown,
  limits: SchemaLimits,
): PreparedSchema | SchemaProblem {
  if (typeof schema === 'boolean')
    return prepared(schema, String(schema), '2020-12', true, [], [], []);
  if (!isPlainObject(schema))
    return problem(
      'SCHEMA_INVALID',
      `a schema must be a JSON object or a boolean, not ${describe(schema)}`,
    );
  const warnings: string[] = [];
  const declared = schema.$schema;
  let dialect: SchemaDialect = '2020-12';
  let dialectAssumed = true;
  if (declared !== undefined) {
    if (typeof declared !== 'string') return problem('SCHEMA_INVALID', '$schema must be a string');
    const known = toSchemaDialect(declared);
    if (known === undefined)
      warnings.push(
        `unknown $schema "${preview(declared, 100)}"; validated as JSON Schema 2020-12`,
      );
    else {
      dialect = known;
      dialectAssumed = false;
    }
  }
  const walk = new SchemaWalk(limits, dialect === 'draft-04');
  let copy: Record<string, unknown>;
  try {
    copy = walk.schema(schema, 1, rootBaseUri) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof PrepareFailure) return problem(error.code, error.problem);
    if (error instanceof RangeError)
      return problem('SCHEMA_TOO_DEEP', 'schema is nested too deeply to process');
    throw error;
  }
  delete copy.$schema;
  const externalRefs = walk.removeExternalRefs();
  if (externalRefs.length > 0)
    warnings.push(
      `schema refers to ${externalRefs.length === 1 ? 'an external schema' : 'external schemas'} that ${externalRefs.length === 1 ? 'is' : 'are'} never fetched (${externalRefs.map((ref) => preview(ref, 100)).join(', ')}); any value is accepted there`,
    );
  return prepared(
    copy,
    JSON.stringify(schema),
    dialect,
    dialectAssumed,
    externalRefs,
    warnings,
    walk.patternPropertyMaps,
  );
}
function prepared(
  copy: Record<string, unknown> | boolean,
  text: string,
  dialect: SchemaDialect,
  dialectAssumed: boolean,
  externalRefs: readonly string[],
  warnings: readonly string[],
  patternPropertyMaps: readonly Record<string, unknown>[],
): PreparedSchema {
  return {
    ok: true,
    copy,
    text,
    dialect,
    dialectAssumed,
    externalRefs,
    warnings,
    patternPropertyMaps,
  };
}

function problem(code: SchemaProblemCode, text: string): SchemaProblem {
  return { ok: false, code, problem: text };
}
