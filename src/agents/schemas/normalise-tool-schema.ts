/**
 * A tool's input schema in the form a model provider accepts, with a diagnostic for every change.
 * (The foundation of issue 15: the provider rules are filled in by the normaliser work.)
 */
import type { JsonObject } from '../../jsonrpc/message.js';

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

/** `schema` (tool `tool`'s input schema) in the form `provider` accepts; never throws. */
export function normaliseToolSchema(
  tool: string,
  schema: JsonObject,
  provider: SchemaProvider,
): NormalisedSchema {
  void tool;
  void provider;
  return { schema: structuredClone(schema), strict: false, diagnostics: [] };
}
