/**
 * A tool's input schema in the form a model provider accepts, with a diagnostic for every change.
 * The rules of each provider live beside this file (`openai-strict-schema.ts`, `openai-schema.ts`,
 * `gemini-schema.ts`, `anthropic-schema.ts`); docs/agents.md ("Schemas per provider") sums them up.
 */
import type { JsonObject } from '../../jsonrpc/message.js';
import { toAnthropicSchema } from './anthropic-schema.js';
import { copyJsonSchema } from './copy-json-schema.js';
import { toGeminiSchema } from './gemini-schema.js';
import { toOpenAiSchema } from './openai-schema.js';
import { toOpenAiStrictSchema } from './openai-strict-schema.js';
import { SchemaDiagnostics } from './schema-diagnostics.js';
import { shortJson, type JsonSchemaNode } from './json-schema-node.js';

/**
 * The schema dialect a tool is offered in: OpenAI function tools in strict mode or not, Anthropic
 * Messages tools, Gemini function declarations.
 */
export type SchemaProvider = 'openai-strict' | 'openai' | 'anthropic' | 'gemini';

/** One change a normaliser made to a tool's schema, and why. */
export interface SchemaDiagnostic {
  /** The tool's exposed name. */
  tool: string;
  provider: SchemaProvider;
  /** Where in the schema, as a JSON Pointer (`''` for the root). */
  path: string;
  /** What was done, in a word or two (for example `inlined-ref`, `made-required-nullable`). */
  change: string;
  /** The change and its reason in a sentence that names the tool. */
  message: string;
}

/** A tool's schema as one provider accepts it. */
export interface NormalisedSchema {
  schema: JsonObject;
  /**
   * `openai-strict` only: whether the schema meets strict mode (else the tool is offered
   * non-strict, with a diagnostic saying why); false for every other provider.
   */
  strict: boolean;
  diagnostics: SchemaDiagnostic[];
}

/**
 * `schema` (tool `tool`'s input schema) in the form `provider` accepts; never throws. The input is
 * never changed; the work is bounded whatever it holds (see `copyJsonSchema`, `inlineRefs`).
 *
 * - `openai-strict`: OpenAI's strict mode (`strict: true`), or, when the schema cannot be made
 *   strict without changing what the model may send, the `openai` form with `strict: false` and a
 *   `kept-non-strict` diagnostic per reason.
 * - `openai`: OpenAI function tools without strict mode.
 * - `anthropic`: Anthropic Messages tools' `input_schema`.
 * - `gemini`: Gemini function declarations' `parameters` (its OpenAPI subset).
 *
 * A schema that cannot be processed at all (not an object, too large or too deep to copy) gives
 * an empty object schema and an `unprocessable` diagnostic.
 */
export function normaliseToolSchema(
  tool: string,
  schema: JsonObject,
  provider: SchemaProvider,
): NormalisedSchema {
  const diagnostics = new SchemaDiagnostics<SchemaProvider>(tool, provider);
  try {
    const copy = copyJsonSchema(schema);
    if (!copy.ok) return unprocessable(diagnostics, copy.problem);
    switch (provider) {
      case 'openai-strict': {
        const strict = toOpenAiStrictSchema(copy.schema, diagnostics);
        if (strict.ok)
          return { schema: strict.schema, strict: true, diagnostics: diagnostics.finish() };
        const fallback = new SchemaDiagnostics<SchemaProvider>(tool, provider);
        for (const blocker of strict.blockers)
          fallback.add(
            blocker.path,
            'kept-non-strict',
            `offered the tool without strict mode, because ${blocker.reason}`,
          );
        const again = copyJsonSchema(schema);
        if (!again.ok) return unprocessable(fallback, again.problem);
        return {
          schema: toOpenAiSchema(again.schema, fallback),
          strict: false,
          diagnostics: fallback.finish(),
        };
      }
      case 'openai':
        return plain(toOpenAiSchema(copy.schema, diagnostics), diagnostics);
      case 'anthropic':
        return plain(toAnthropicSchema(copy.schema, diagnostics), diagnostics);
      case 'gemini':
        return plain(toGeminiSchema(copy.schema, diagnostics), diagnostics);
    }
  } catch (error) {
    // Bounded recursion makes this unreachable for any JSON; kept so that a fault in a rule costs
    // one tool its schema, never the host.
    return unprocessable(
      diagnostics,
      `normalising failed (${error instanceof Error ? error.name : shortJson(error)})`,
    );
  }
  return unprocessable(diagnostics, `the provider ${shortJson(provider)} is not known`);
}

function plain(
  schema: JsonSchemaNode,
  diagnostics: SchemaDiagnostics<SchemaProvider>,
): NormalisedSchema {
  return { schema, strict: false, diagnostics: diagnostics.finish() };
}

function unprocessable(
  diagnostics: SchemaDiagnostics<SchemaProvider>,
  problem: string,
): NormalisedSchema {
  diagnostics.add(
    [],
    'unprocessable',
    `replaced the schema by an empty object schema, because ${problem}`,
  );
  return {
    schema: { type: 'object', properties: {} },
    strict: false,
    diagnostics: diagnostics.finish(),
  };
}
