export {
  SchemaValidator,
  createSchemaValidator,
  defaultSchemaValidatorOptions,
  type SchemaValidatorOptions,
} from './schema-validator.js';
export type {
  CompiledSchema,
  SchemaCheck,
  SchemaProblem,
  SchemaProblemCode,
  ValidationResult,
} from './schema-check.js';
export { schemaDialects, toSchemaDialect, type SchemaDialect } from './schema-dialect.js';
