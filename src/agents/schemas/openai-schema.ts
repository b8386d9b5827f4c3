import { hoistRefs } from './hoist-refs.js';
import { repairSchema } from './repair-schema.js';
import type { SchemaDiagnostics } from './schema-diagnostics.js';
import { isJsonSchemaNode, walkSchemas, type JsonSchemaNode } from './json-schema-node.js';
import { toRootObject } from './to-root-object.js';

// What OpenAI refuses at the root of function parameters besides a non-object type.
const rootRefused = ['not', 'enum', 'const', 'if', 'then', 'else'];

/**
 * A tool's input schema (a private copy, changed in place) in the form OpenAI accepts for
 * function tools without strict mode. Light: the schema is otherwise sent as written (OpenAI
 * treats it as guidance, and the tool's own validation still applies). The root becomes an object
 * schema with `properties` (see `toRootObject`; a root union is flattened, and `not`, `enum`,
 * `const` and `if`/`then`/`else` are dropped there); `$schema` is dropped everywhere; references
 * are rewritten to the root's `$defs` (`hoistRefs`); invalid keyword values are repaired (`repairSchema`). Recursive schemas are kept, as references:
 * OpenAI accepts them. References that do not resolve inside the schema are removed.
 */
export function toOpenAiSchema(
  copy: JsonSchemaNode,
  diagnostics: SchemaDiagnostics,
): JsonSchemaNode {
  repairSchema(copy, diagnostics);
  const hoisted = hoistRefs(copy, diagnostics);
  const defs = isJsonSchemaNode(hoisted.schema.$defs) ? hoisted.schema.$defs : {};
  const resolve = (ref: string): JsonSchemaNode | undefined => {
    const target = defs[ref.slice('#/$defs/'.length).replace(/~1/g, '/').replace(/~0/g, '~')];
    return ref.startsWith('#/$defs/') && isJsonSchemaNode(target)
      ? structuredClone(target)
      : undefined;
  };
  const { schema } = toRootObject(hoisted.schema, diagnostics, { flattenUnions: true, resolve });
  for (const key of rootRefused)
    if (Object.hasOwn(schema, key)) {
      delete schema[key];
      diagnostics.add(
        [],
        'dropped-keyword',
        `dropped ${key} at the root, which OpenAI refuses there (the tool's own validation still applies it)`,
      );
    }
  walkSchemas(schema, (node, path) => {
    if (Object.hasOwn(node, '$schema')) {
      delete node.$schema;
      diagnostics.add(path, 'dropped-keyword', 'dropped $schema, which OpenAI does not use');
    }
  });
  return schema;
}
