/**
 * Checks messages against the official JSON Schema of an MCP revision (../shared/mcp-spec), with
 * ajv: the message as a whole, and the method-specific definition (InitializeRequest,
 * CallToolRequest, CreateMessageResult, …).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonRpcMessage } from '../../src/index.js';

export type Revision = '2024-11-05' | '2025-03-26' | '2025-06-18' | '2025-11-25' | '2026-07-28';

const specDir = fileURLToPath(new URL('../../../shared/mcp-spec/', import.meta.url));

/** Result definitions of what a server may ask the client, by method. */
const clientResults: Record<string, string> = {
  'sampling/createMessage': 'CreateMessageResult',
  'roots/list': 'ListRootsResult',
  'elicitation/create': 'ElicitResult',
  ping: 'Result',
};

export class SpecSchema {
  readonly #ajv: Ajv;
  readonly #defsKey: string;
  readonly #byMethod = new Map<string, string>();
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(readonly revision: Revision) {
    const schema = JSON.parse(readFileSync(`${specDir}${revision}/schema.json`, 'utf8')) as Record<
      string,
      unknown
    >;
    const modernDraft = String(schema.$schema).includes('2020-12');
    this.#ajv = modernDraft
      ? new Ajv2020({ strict: false, allErrors: true })
      : new Ajv({ strict: false, allErrors: true });
    this.#defsKey = modernDraft ? '$defs' : 'definitions';
    const defs = schema[this.#defsKey] as Record<
      string,
      { properties?: { method?: { const?: string } } }
    >;
    for (const [name, def] of Object.entries(defs)) {
      const method = def.properties?.method?.const;
      if (typeof method === 'string' && (name.endsWith('Request') || name.endsWith('Notification')))
        this.#byMethod.set(method, name);
    }
    this.#ajv.addSchema({ ...schema, $id: 'mcp' });
  }

  /** Problems with one message we sent (empty when it is valid). */
  check(
    message: JsonRpcMessage,
    inboundMethods: ReadonlyMap<string | number, string> = new Map(),
  ): string[] {
    const m = message as { method?: string; id?: string | number; result?: unknown };
    if (m.method !== undefined) {
      const def = this.#byMethod.get(m.method);
      if (def === undefined) return [`${m.method}: no definition in ${this.revision}`];
      return this.#validate(def, message, m.method);
    }
    const method = m.id === undefined ? undefined : inboundMethods.get(m.id);
    const problems = this.#validate(
      this.revision === '2024-11-05' ? 'JSONRPCResponse' : 'JSONRPCMessage',
      message,
      'response',
    );
    const resultDef = method === undefined ? undefined : clientResults[method];
    if (resultDef !== undefined && 'result' in m)
      problems.push(...this.#validate(resultDef, m.result, `${method} result`));
    return problems;
  }

  /** Problems with a value as the named definition. */
  checkAs(definition: string, value: unknown): string[] {
    return this.#validate(definition, value, definition);
  }

  #validate(definition: string, value: unknown, label: string): string[] {
    let validate = this.#compiled.get(definition);
    if (validate === undefined) {
      validate = this.#ajv.getSchema(`mcp#/${this.#defsKey}/${definition}`);
      if (validate === undefined) return [`${label}: definition ${definition} missing`];
      this.#compiled.set(definition, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${label} (${definition}): ${e.instancePath} ${e.message ?? ''}`);
  }
}
