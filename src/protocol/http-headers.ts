/**
 * The request metadata headers of MCP's Streamable HTTP transport (2026-07-28, SEP-2243):
 * `Mcp-Method`, `Mcp-Name`, and `Mcp-Param-{Name}` for tool parameters whose schema carries an
 * `x-mcp-header` annotation. Pure functions: the client decides when to use them, the HTTP
 * transport only sends what it is given.
 */
import { isObject } from './guards.js';
import { McpMethod } from './methods.js';

/** One annotated tool parameter: the header name part and the property path to its value. */
export interface HeaderParam {
  /** The `x-mcp-header` value: the header is `Mcp-Param-{header}`. */
  readonly header: string;
  /** The chain of `properties` keys from the schema root to the parameter. */
  readonly path: readonly string[];
}

/** What a tool's `x-mcp-header` annotations say: the parameters to mirror, or why they are invalid. */
export type HeaderAnnotations =
  | { readonly ok: true; readonly params: readonly HeaderParam[] }
  | { readonly ok: false; readonly problem: string };

const ANNOTATION = 'x-mcp-header';
/** RFC 9110 `token`: one or more tchar. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII and space, with no space at either end: sent as is. */
const PLAIN_VALUE = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;
const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
/** Keywords under which a schema is not statically reachable through `properties` alone. */
const NESTED_KEYWORDS = [
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'additionalProperties',
  'patternProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
] as const;
const NO_PARAMS: HeaderAnnotations = { ok: true, params: [] };
const ANNOTATION_CACHE = new WeakMap<object, HeaderAnnotations>();

/**
 * A header value as MCP sends it: as is when it is plain visible ASCII (inner spaces allowed),
 * otherwise (non-ASCII, control characters, spaces at either end, or a value that looks like the
 * sentinel itself) as `=?base64?{base64 of the UTF-8}?=`.
 */
export function encodeHeaderValue(value: string): string {
  const plain =
    PLAIN_VALUE.test(value) &&
    !(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX));
  if (plain) return value;
  return `${SENTINEL_PREFIX}${base64(value)}${SENTINEL_SUFFIX}`;
}

/** Strict base64 (padded, standard alphabet), as the sentinel form carries it. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A received header value as the body's value to compare with: surrounding whitespace dropped
 * (RFC 9110), the `=?base64?{...}?=` form decoded, anything else literal. Undefined when the
 * sentinel form holds invalid base64 (bad padding, characters outside the alphabet) or bytes that
 * are not UTF-8: such a header matches no value.
 */
export function decodeHeaderValue(value: string): string | undefined {
  const trimmed = value.trim();
  if (
    trimmed.length < SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length ||
    !trimmed.startsWith(SENTINEL_PREFIX) ||
    !trimmed.endsWith(SENTINEL_SUFFIX)
  )
    return trimmed;
  const encoded = trimmed.slice(SENTINEL_PREFIX.length, -SENTINEL_SUFFIX.length);
  if (!BASE64.test(encoded)) return undefined;
  try {
    const binary = atob(encoded);
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Base64 of a string's UTF-8 bytes, with the web APIs every runtime has. */
function base64(value: string): string {
  const bytes = new TextEncoder().encode(value);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * Reads and checks a tool's `x-mcp-header` annotations: each must be a non-empty RFC 9110 token,
 * unique (ignoring case), on a `string`, `integer` or `boolean` property reachable from the root
 * through `properties` keys only. Any annotation elsewhere (under `items`, a composition, a
 * conditional, `$defs`, ...) makes the tool invalid, as the spec requires.
 */
export function headerAnnotations(inputSchema: unknown): HeaderAnnotations {
  if (!isObject(inputSchema)) return NO_PARAMS;
  const cached = ANNOTATION_CACHE.get(inputSchema);
  if (cached !== undefined) return cached;
  const params: HeaderParam[] = [];
  const problem = collect(inputSchema, [], params, true);
  const verdict: HeaderAnnotations =
    problem !== undefined
      ? { ok: false, problem }
      : params.length === 0
        ? NO_PARAMS
        : { ok: true, params };
  ANNOTATION_CACHE.set(inputSchema, verdict);
  return verdict;
}

function collect(
  schema: Record<string, unknown>,
  path: string[],
  params: HeaderParam[],
  reachable: boolean,
): string | undefined {
  if (ANNOTATION in schema) {
    const where = path.length === 0 ? 'the schema root' : `'${path.join('.')}'`;
    if (!reachable)
      return `x-mcp-header on ${where} is not reachable from the root through 'properties' alone`;
    const header = schema[ANNOTATION];
    if (typeof header !== 'string' || header === '')
      return `x-mcp-header on ${where} is empty or not a string`;
    if (!TOKEN.test(header))
      return `x-mcp-header '${printable(header)}' on ${where} is not an HTTP header token`;
    if (path.length === 0) return 'x-mcp-header on the schema root is not a parameter';
    const type = schema.type;
    if (type !== 'string' && type !== 'integer' && type !== 'boolean')
      return `x-mcp-header '${header}' on ${where} needs type string, integer or boolean, not ${JSON.stringify(type ?? 'unspecified')}`;
    const lower = header.toLowerCase();
    if (params.some((p) => p.header.toLowerCase() === lower))
      return `x-mcp-header '${header}' is used twice (header names ignore case)`;
    params.push({ header, path: [...path] });
  }
  if (isObject(schema.properties)) {
    for (const [key, child] of Object.entries(schema.properties)) {
      if (!isObject(child)) continue;
      const problem = collect(child, [...path, key], params, reachable);
      if (problem !== undefined) return problem;
    }
  }
  for (const keyword of NESTED_KEYWORDS) {
    const value = schema[keyword];
    for (const child of Array.isArray(value)
      ? value
      : isObject(value)
        ? subschemas(keyword, value)
        : []) {
      if (!isObject(child)) continue;
      const problem = collect(child, [...path, keyword], params, false);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

/** The schemas under a keyword whose value is an object: itself, or (for maps) its values. */
function subschemas(keyword: string, value: Record<string, unknown>): unknown[] {
  return keyword === 'patternProperties' ||
    keyword === 'dependentSchemas' ||
    keyword === '$defs' ||
    keyword === 'definitions'
    ? Object.values(value)
    : [value];
}

function printable(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

/**
 * The MCP headers for one outgoing message: `Mcp-Method` for every request and notification,
 * `Mcp-Name` for `tools/call`, `prompts/get` (the name), `resources/read` (the URI) and
 * `tasks/get`, `tasks/update`, `tasks/cancel` (the `taskId`, SEP-2663), and for `tools/call` one `Mcp-Param-{Name}` per annotated parameter present in the arguments (omitted
 * when absent or null). `paramsOf` gives a tool's annotated parameters, if known.
 */
export function mcpRequestHeaders(
  message: unknown,
  paramsOf: (tool: string) => readonly HeaderParam[] | undefined,
): Record<string, string> | undefined {
  if (!isObject(message) || typeof message.method !== 'string') return undefined;
  const method = message.method;
  const headers: Record<string, string> = { 'mcp-method': method };
  const params = isObject(message.params) ? message.params : undefined;
  if (params === undefined) return headers;
  const name =
    method === McpMethod.ToolsCall || method === McpMethod.PromptsGet
      ? params.name
      : method === McpMethod.ResourcesRead
        ? params.uri
        : method === McpMethod.TasksGet ||
            method === McpMethod.TasksUpdate ||
            method === McpMethod.TasksCancel
          ? params.taskId
          : undefined;
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  if (method !== McpMethod.ToolsCall || typeof name !== 'string') return headers;
  const annotated = paramsOf(name);
  if (annotated === undefined || annotated.length === 0) return headers;
  const args = params.arguments;
  for (const { header, path } of annotated) {
    const text = headerParamText(args, path);
    if (text !== undefined) headers[`mcp-param-${header.toLowerCase()}`] = encodeHeaderValue(text);
  }
  return headers;
}

/**
 * The text an annotated parameter's header carries for `args` (before encoding): a string as is,
 * a boolean or a safe integer as its decimal text; undefined when the argument is absent, null or
 * of another type (then no header is sent).
 */
export function headerParamText(args: unknown, path: readonly string[]): string | undefined {
  const value = valueAt(args, path);
  return typeof value === 'string'
    ? value
    : typeof value === 'boolean'
      ? String(value)
      : typeof value === 'number' && Number.isSafeInteger(value)
        ? String(value)
        : undefined;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const key of path) {
    if (!isObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}
