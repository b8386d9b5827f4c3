import type { ErrorCode } from '../errors/codes.js';
import type { SchemaDialect } from './schema-dialect.js';

/** Why a schema cannot be used; each is a code of the closed list in docs/errors.md. */
export type SchemaProblemCode = Extract<
  ErrorCode,
  'SCHEMA_TOO_DEEP' | 'SCHEMA_TOO_LARGE' | 'SCHEMA_INVALID'
>;

/** The outcome of validating one value: valid, or a few short, readable reasons why not. */
export type ValidationResult =
  | { readonly valid: true }
  | {
      readonly valid: false;
      /** At most a few reasons, each `<JSON pointer> <message>`, e.g. `/items/0/price must be number`. */
      readonly errors: readonly string[];
      /**
       * The reasons joined into one bounded line, ready to follow a prefix such as
       * `structuredContent does not match the tool's outputSchema: `.
       */
      readonly message: string;
    };

/** A schema that compiled. Frozen: the same object is handed to every caller of the same schema. */
export interface CompiledSchema {
  readonly ok: true;
  /** The dialect the schema was validated with (see `SchemaDialect`). */
  readonly dialect: SchemaDialect;
  /** Validates a value; never throws, never changes `value`. */
  readonly validate: (value: unknown) => ValidationResult;
  /**
   * `$ref`s that point outside the schema (`http:` URIs, other files). They are never fetched:
   * each accepts any value, so validation at those places is looser than the author meant.
   */
  readonly externalRefs: readonly string[];
  /**
   * `pattern`s and `patternProperties` keys that are valid ECMAScript but that the linear-time
   * engine cannot run (lookahead, backreferences). Each accepts any string.
   */
  readonly unsupportedPatterns: readonly string[];
  /** Everything above, and any other caveat, as short sentences for a log line. */
  readonly warnings: readonly string[];
}

/** A schema that cannot be used, and why: a short sentence fit for a warning or a model. */
export interface SchemaProblem {
  readonly ok: false;
  readonly code: SchemaProblemCode;
  readonly problem: string;
}

/** What `SchemaValidator.compile()` returns: a usable schema or the reason it is not one. */
export type SchemaCheck = CompiledSchema | SchemaProblem;
