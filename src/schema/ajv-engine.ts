// Loaded only by `import()` from schema-validator.ts: ajv and re2js cost ~70 ms to load, and an
// application that never compiles a schema should not pay for them. Nothing else may import this.
import Ajv from 'ajv';
import Ajv2019 from 'ajv/dist/2019.js';
import Ajv2020 from 'ajv/dist/2020.js';
import type { AnySchema, Options } from 'ajv';
import { preview } from '../errors/redact.js';
import { formatSchemaErrors } from './format-errors.js';
import type { PreparedSchema } from './prepare-schema.js';
import { compileRe2Pattern, createRe2RegExp } from './re2-regexp.js';
import type { CompiledSchema, SchemaCheck, ValidationResult } from './schema-check.js';
import type { SchemaDialect } from './schema-dialect.js';
import { rootBaseUri } from './schema-walk.js';

// ajv is CommonJS: under Node's ESM interop the default import is `module.exports`, whose
// `default` is the class.
type AjvClass = typeof Ajv.default;
const ajvClasses: Readonly<Record<SchemaDialect, AjvClass>> = {
  '2020-12': Ajv2020.default,
  '2019-09': Ajv2019.default,
  'draft-07': Ajv.default,
  'draft-06': Ajv.default,
  'draft-04': Ajv.default,
};

// The flags ajv gives patterns (its `unicodeRegExp` option is on by default).
const regExpFlags = 'u';

const commonOptions = {
  strict: false,
  validateFormats: false,
  allErrors: false,
  unicodeRegExp: true,
  // `required: ["constructor"]` must not be met by Object.prototype.constructor.
  ownProperties: true,
  // A $ref'd schema is inlined only when small: inlining big ones at many places multiplies code.
  inlineRefs: 8,
} as const satisfies Options;

// One instance per class checks schemas against their meta-schema; it compiles the (trusted)
// meta-schemas once and never grows, as `validateSchema` adds nothing to it.
const metaValidators = new Map<AjvClass, InstanceType<AjvClass>>();

function metaValidator(dialect: SchemaDialect): InstanceType<AjvClass> {
  const ajvClass = ajvClasses[dialect];
  let instance = metaValidators.get(ajvClass);
  if (instance === undefined) {
    instance = new ajvClass(commonOptions);
    metaValidators.set(ajvClass, instance);
  }
  return instance;
}

const valid: ValidationResult = Object.freeze({ valid: true });

/**
 * Checks a prepared schema against its dialect's meta-schema and compiles it. Never throws:
 * every failure is a `SCHEMA_INVALID` problem.
 *
 * Each schema is compiled by a new ajv instance (~0.3 ms) made without meta-schemas: an ajv
 * instance keeps every function it ever compiled and every `$id` it saw, so a shared one would
 * grow with every tool list and let one server's `$id` collide with another's. Dropping the
 * instance with the compiled schema keeps memory bounded by the validator's cache.
 */
export function compilePrepared(prepared: PreparedSchema): SchemaCheck {
  const warnings = [...prepared.warnings];
  let dialect = prepared.dialect;
  const metaProblem = checkAgainstMetaSchema(prepared.copy, dialect);
  if (metaProblem !== undefined) {
    // Many servers omit $schema but write draft-07 (tuple `items`); MCP's default is 2020-12.
    if (
      prepared.dialectAssumed &&
      checkAgainstMetaSchema(prepared.copy, 'draft-07') === undefined
    ) {
      warnings.push(
        `schema is not valid JSON Schema 2020-12 (${metaProblem}) but is valid draft-07; validated as draft-07`,
      );
      dialect = 'draft-07';
    } else return invalid(`schema is not valid JSON Schema ${dialect}: ${metaProblem}`);
  }

  const unsupportedPatterns: string[] = [];
  acceptAnythingForUnsupportedPatternProperties(prepared);
  let validateFunction: ReturnType<InstanceType<AjvClass>['compile']>;
  try {
    const ajv = new ajvClasses[dialect]({
      ...commonOptions,
      meta: false,
      validateSchema: false,
      addUsedSchema: false,
      code: {
        regExp: createRe2RegExp({
          onUnsupported: (pattern) => {
            if (!unsupportedPatterns.includes(pattern)) unsupportedPatterns.push(pattern);
          },
        }),
      },
    });
    validateFunction = ajv.compile(withRootId(prepared.copy));
  } catch (error) {
    return invalid(`schema cannot be compiled: ${messageOf(error)}`);
  }
  if (unsupportedPatterns.length > 0)
    warnings.push(
      `the linear-time regex engine cannot run ${unsupportedPatterns.length === 1 ? 'the pattern' : 'the patterns'} ${unsupportedPatterns.map((pattern) => `"${preview(pattern, 60)}"`).join(', ')} (lookahead or backreference); any string is accepted there`,
    );

  const validate = (value: unknown): ValidationResult => {
    try {
      if (validateFunction(value)) return valid;
      return mismatch(formatSchemaErrors(validateFunction.errors ?? []));
    } catch (error) {
      // A stack overflow on absurdly nested data, a getter that throws: never the caller's problem.
      return mismatch({
        errors: [`(root) could not be validated: ${messageOf(error)}`],
        message: `(root) could not be validated: ${messageOf(error)}`,
      });
    }
  };
  const compiled: CompiledSchema = {
    ok: true,
    dialect,
    validate,
    externalRefs: Object.freeze([...prepared.externalRefs]),
    unsupportedPatterns: Object.freeze(unsupportedPatterns),
    warnings: Object.freeze(warnings),
  };
  return Object.freeze(compiled);
}

/**
 * A `patternProperties` key RE2 cannot run matches every property name (see re2-regexp.ts); its
 * subschema becomes `true` in the copy, so that spot accepts anything rather than applying the
 * subschema to every property.
 */
function acceptAnythingForUnsupportedPatternProperties(prepared: PreparedSchema): void {
  for (const map of prepared.patternPropertyMaps)
    for (const pattern of Object.keys(map)) {
      try {
        if (compileRe2Pattern(pattern, regExpFlags) === undefined) map[pattern] = true;
      } catch {
        // Not valid ECMAScript: compiling reports the schema invalid.
      }
    }
}

/** A readable reason why `schema` is not valid in `dialect`, or `undefined` when it is. */
function checkAgainstMetaSchema(schema: AnySchema, dialect: SchemaDialect): string | undefined {
  if (typeof schema === 'boolean') return undefined;
  const meta = metaValidator(dialect);
  try {
    if (meta.validateSchema(schema) === true) return undefined;
    return formatSchemaErrors(meta.errors ?? []).message;
  } catch (error) {
    return messageOf(error);
  }
}

function invalid(problem: string): SchemaCheck {
  return Object.freeze({ ok: false, code: 'SCHEMA_INVALID', problem: preview(problem, 600) });
}

function mismatch(result: { errors: string[]; message: string }): ValidationResult {
  return Object.freeze({
    valid: false,
    errors: Object.freeze(result.errors),
    message: result.message,
  });
}

function messageOf(error: unknown): string {
  return preview(error instanceof Error ? error.message : String(error), 200);
}

/**
 * The copy with a URI of its own at the root when it names none (the base its refs were resolved
 * against): compiled unregistered, ajv finds the root by reference (`"$ref": "#"`, a recursive
 * tree) only through the root's URI.
 */
function withRootId(copy: PreparedSchema['copy']): PreparedSchema['copy'] {
  if (typeof copy !== 'object' || copy.$id !== undefined) return copy;
  return { ...copy, $id: rootBaseUri };
}
