/**
 * The JSON Schema dialects mcp-host validates. `2020-12` is MCP's default (a schema without
 * `$schema` is 2020-12); `draft-07` is what servers built with zod-to-json-schema send. Draft-06
 * and draft-04 are validated with the draft-07 rules (draft-04's boolean `exclusiveMaximum` and
 * `exclusiveMinimum` and its `id` are converted first).
 */
export const schemaDialects = ['2020-12', '2019-09', 'draft-07', 'draft-06', 'draft-04'] as const;

export type SchemaDialect = (typeof schemaDialects)[number];

const dialectsByUri: Readonly<Record<string, SchemaDialect>> = {
  'json-schema.org/draft/2020-12/schema': '2020-12',
  'json-schema.org/draft/2019-09/schema': '2019-09',
  'json-schema.org/draft-07/schema': 'draft-07',
  'json-schema.org/draft-06/schema': 'draft-06',
  'json-schema.org/draft-04/schema': 'draft-04',
  // "The latest published draft", as some generators still write it.
  'json-schema.org/schema': '2020-12',
};

/**
 * The dialect a `$schema` URI names, or `undefined` for a URI this module does not know. The
 * scheme (`http` or `https`) and a trailing empty fragment (`#`) do not matter.
 */
export function toSchemaDialect(uri: string): SchemaDialect | undefined {
  const key = uri
    .trim()
    .replace(/^https?:\/\//i, '')
    .replace(/#$/, '')
    .toLowerCase();
  return Object.hasOwn(dialectsByUri, key) ? dialectsByUri[key] : undefined;
}
