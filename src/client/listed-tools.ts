import type { RequestHeaders } from '../jsonrpc/transport.js';
import {
  headerAnnotations,
  mcpRequestHeaders,
  type HeaderParam,
} from '../protocol/http-headers.js';
import { isObject } from '../protocol/guards.js';
import { type CallToolResult, type Tool } from '../protocol/types.js';
import type { SchemaValidator } from '../schema/schema-validator.js';
import { unusable } from './tool-exclusion.js';

/** Why a tool definition is unusable, or undefined when it is fine. */
export function toolProblem(tool: unknown): string | undefined {
  if (!isObject(tool) || typeof tool.name !== 'string' || tool.name === '') return 'it has no name';
  if (!isObject(tool.inputSchema)) return 'its inputSchema is not an object';
  if (tool.outputSchema !== undefined && !isObject(tool.outputSchema))
    return 'its outputSchema is not an object';
  return undefined;
}

/** Splits a listing into usable tools and the excluded ones, each with the reason. */
export function partitionTools(listed: unknown[]): {
  items: Tool[];
  excluded: { name: string; reason: string }[];
} {
  const items: Tool[] = [];
  const excluded: { name: string; reason: string }[] = [];
  for (const tool of listed) {
    const reason = toolProblem(tool);
    if (reason === undefined) items.push(tool as Tool);
    else
      excluded.push({
        name: isObject(tool) && typeof tool.name === 'string' ? tool.name : '<unnamed>',
        reason,
      });
  }
  return { items, excluded };
}

/**
 * Why a tool's schemas are unusable (invalid, too deep, too large), or undefined, by the
 * validator's synchronous check: ajv is not loaded and nothing is compiled. Schemas stay exactly
 * as sent either way; this only decides whether the tool is offered.
 */
export function schemaProblem(tool: Tool, validator: SchemaValidator): string | undefined {
  for (const [label, schema] of [
    ['inputSchema', tool.inputSchema],
    ['outputSchema', tool.outputSchema],
  ] as const) {
    if (schema === undefined) continue;
    const shape = validator.check(schema);
    if (!shape.ok) return unusable(label, shape.problem);
  }
  return undefined;
}

/** A tool result turned into an error result with a clear message: data for the model, not a throw. */
export function toolErrorResult(message: string, original: CallToolResult): CallToolResult {
  return { ...original, isError: true, content: [{ type: 'text', text: message }] };
}

/**
 * Checks a result against the tool's declared output: a tool with an `outputSchema` must return
 * `structuredContent` that matches it (unless the result is an error). Returns the result, or an
 * error result saying what is wrong: data for the model, never a throw.
 */
export async function checkToolResult(
  tool: Tool | undefined,
  result: CallToolResult,
  validator: SchemaValidator | undefined,
): Promise<CallToolResult> {
  if (tool?.outputSchema === undefined || result.isError === true) return result;
  if (!isObject(result.structuredContent)) {
    return toolErrorResult(
      `tool '${tool.name}' declares an outputSchema but returned no structuredContent`,
      result,
    );
  }
  if (validator === undefined) return result;
  const compiled = await validator.compile(tool.outputSchema);
  // ListedTools.refusal() compiled it before the call was sent, and refused the call if this
  // fails: reached only when the schema is checked outside a client.
  if (!compiled.ok)
    return toolErrorResult(
      `tool '${tool.name}' cannot be checked: ${unusable('outputSchema', compiled.problem)}`,
      result,
    );
  const verdict = compiled.validate(result.structuredContent);
  if (verdict.valid) return result;
  return toolErrorResult(
    `structuredContent does not match the tool's outputSchema: ${verdict.message}`,
    result,
  );
}

/**
 * What the client knows of a server's tools from its last listing: the usable ones (whose output
 * schemas check results), the excluded ones with the reason (they cannot be called either), and,
 * over transports that carry headers, the parameters each tool mirrors into `Mcp-Param-*` headers.
 */
export class ListedTools {
  readonly #validator: SchemaValidator | undefined;
  readonly #known = new Map<string, Tool>();
  readonly #excluded = new Map<string, string>();
  readonly #headerParams = new Map<string, readonly HeaderParam[]>();
  #checkHeaders = false;

  constructor(validator: SchemaValidator | undefined) {
    this.#validator = validator;
  }

  /**
   * Whether tools' `x-mcp-header` annotations matter (the transport carries headers): then a tool
   * with an invalid annotation is excluded, as the spec requires of HTTP clients, and the
   * annotated parameters of the others are mirrored into `Mcp-Param-*` headers.
   */
  set checkHeaderAnnotations(on: boolean) {
    this.#checkHeaders = on;
  }

  get checksHeaderAnnotations(): boolean {
    return this.#checkHeaders;
  }

  /**
   * Splits a fresh listing into usable and excluded tools, and remembers both. Schemas are
   * checked by `SchemaValidator.check()`, synchronously and without loading ajv; they are compiled
   * when a tool is first called (see `refusal`).
   */
  accept(listed: unknown[]): { items: Tool[]; excluded: { name: string; reason: string }[] } {
    const { items: usable, excluded } = partitionTools(listed);
    const items: Tool[] = [];
    const headerParams = new Map<string, readonly HeaderParam[]>();
    for (const tool of usable) {
      let problem: string | undefined;
      if (this.#checkHeaders) {
        const annotations = headerAnnotations(tool.inputSchema);
        if (!annotations.ok)
          problem = `its inputSchema cannot be sent over HTTP: ${annotations.problem}`;
        else if (annotations.params.length > 0) headerParams.set(tool.name, annotations.params);
      }
      if (problem === undefined && this.#validator !== undefined)
        problem = schemaProblem(tool, this.#validator);
      if (problem === undefined) items.push(tool);
      else excluded.push({ name: tool.name, reason: problem });
    }
    this.#known.clear();
    this.#excluded.clear();
    this.#headerParams.clear();
    for (const [name, params] of headerParams) this.#headerParams.set(name, params);
    for (const tool of items) this.#known.set(tool.name, tool);
    for (const { name, reason } of excluded) this.#excluded.set(name, reason);
    return { items, excluded };
  }

  /**
   * MCP's request metadata headers for transports that carry headers (HTTP): `Mcp-Method`,
   * `Mcp-Name`, and the `Mcp-Param-*` headers of the listed tool a `tools/call` names.
   */
  readonly requestHeaders: RequestHeaders = (message) =>
    mcpRequestHeaders(message, (tool) => this.#headerParams.get(tool));

  /**
   * Why a call to `name` must not be sent, or undefined: the reason the listing excluded it or,
   * for a tool with an `outputSchema`, the problem found when that schema is first compiled (the
   * listing's check lets a few unusable schemas through: docs/architecture.md, "Tool schemas"); the tool is then
   * excluded until the next listing. A promise only while that first compilation runs; it
   * rejects only when the validator cannot be loaded (`INTERNAL`).
   */
  refusal(name: string): string | undefined | Promise<string | undefined> {
    const excluded = this.#excluded.get(name);
    if (excluded !== undefined) return excluded;
    const tool = this.#known.get(name);
    const validator = this.#validator;
    if (tool?.outputSchema === undefined || validator === undefined) return undefined;
    if (validator.compiled(tool.outputSchema)?.ok === true) return undefined;
    return validator.compile(tool.outputSchema).then((compiled) => {
      if (this.#known.get(name) !== tool) return this.refusal(name); // listed again meanwhile
      if (compiled.ok) return undefined;
      const reason = unusable('outputSchema', compiled.problem);
      this.#known.delete(name);
      this.#headerParams.delete(name);
      this.#excluded.set(name, reason);
      return reason;
    });
  }

  /** The result as is, or (for a tool with an outputSchema) checked against it. */
  check(name: string, result: CallToolResult): CallToolResult | Promise<CallToolResult> {
    const tool = this.#known.get(name);
    return tool?.outputSchema === undefined
      ? result
      : checkToolResult(tool, result, this.#validator);
  }
}
