import { hoistRefs } from './hoist-refs.js';
import { repairSchema } from './repair-schema.js';
import { defaultInlineOptions, inlineRefs } from './inline-refs.js';
import type { SchemaDiagnostics } from './schema-diagnostics.js';
import { declaredTypes, shortJson, walkSchemas, type JsonSchemaNode } from './json-schema-node.js';
import { toRootObject } from './to-root-object.js';

/**
 * A tool's input schema (a private copy, changed in place) as Anthropic's Messages API accepts
 * it for `input_schema`: an object schema at the root, without `anyOf`/`oneOf`/`allOf` there
 * (merged or flattened by `toRootObject`); local references inlined within bounds
 * (`defaultInlineOptions`); a cycle refused: the recursive place is cut (it accepts any value of
 * the target's type, and says so in its description) with a diagnostic; references that do not
 * resolve inside the schema removed; `type` values that are not JSON Schema types dropped. The
 * rest is JSON Schema as written, which Anthropic accepts.
 */
export function toAnthropicSchema(
  copy: JsonSchemaNode,
  diagnostics: SchemaDiagnostics,
): JsonSchemaNode {
  repairSchema(copy, diagnostics);
  const hoisted = hoistRefs(copy, diagnostics);
  const inlined = inlineRefs(hoisted.schema, diagnostics, defaultInlineOptions);
  const { schema } = toRootObject(inlined.schema, diagnostics, { flattenUnions: true });
  walkSchemas(schema, (node, path) => {
    if (node.type !== undefined && declaredTypes(node) === undefined) {
      diagnostics.add(
        path,
        'dropped-keyword',
        `dropped type ${shortJson(node.type)}, which is not a JSON Schema type`,
      );
      delete node.type;
    } else if (Array.isArray(node.type)) {
      const known = declaredTypes(node);
      if (known !== undefined && known.length !== node.type.length) node.type = known;
    }
  });
  return schema;
}
