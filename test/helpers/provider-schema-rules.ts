/**
 * Independent checks of what each model provider accepts as a tool's input schema, written from
 * the providers' documented rules (docs/agents.md, "Schemas per provider"), not from the
 * normalisers: each function walks a schema and lists every violation as `pointer: problem`; an
 * empty list means the schema follows the rules.
 */

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function esc(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

// OpenAI strict mode (platform.openai.com/docs/guides/structured-outputs, "Supported schemas").
const STRICT_KEYWORDS = new Set([
  'type',
  'description',
  'title',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  '$ref',
  'pattern',
  'format',
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
]);
const STRICT_FORMATS = [
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
];

/** Violations of OpenAI's strict-mode rules. */
export function openAiStrictViolations(schema: unknown): string[] {
  const out: string[] = [];
  if (!isNode(schema)) return ['(root): not an object'];
  if (schema.type !== 'object')
    out.push(`(root): type is ${JSON.stringify(schema.type)}, not "object"`);
  for (const key of ['anyOf', 'oneOf', 'allOf', '$ref'])
    if (key in schema) out.push(`(root): has ${key}`);
  const defs = isNode(schema.$defs) ? schema.$defs : {};
  if (schema.$defs !== undefined && !isNode(schema.$defs))
    out.push('(root): $defs is not an object');
  let properties = 0;
  let enumValues = 0;

  const visit = (node: unknown, path: string, depth: number): void => {
    if (!isNode(node)) {
      out.push(`${path}: schema is ${JSON.stringify(node)}, not an object`);
      return;
    }
    if (depth > 10) out.push(`${path}: nested deeper than 10 levels`);
    for (const key of Object.keys(node))
      if (!STRICT_KEYWORDS.has(key) && !(key === '$defs' && path === ''))
        out.push(`${path}: keyword ${key} is not supported`);
    if ('$ref' in node) {
      const ref = node.$ref;
      if (Object.keys(node).length > 1) out.push(`${path}: $ref has other keywords beside it`);
      if (ref === '#') return;
      if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) {
        out.push(`${path}: $ref ${JSON.stringify(ref)} does not point into the root's $defs`);
        return;
      }
      const name = ref.slice(8).replace(/~1/g, '/').replace(/~0/g, '~');
      if (!Object.hasOwn(defs, name)) out.push(`${path}: $ref ${ref} points at nothing`);
      return;
    }
    if ('anyOf' in node) {
      if (!Array.isArray(node.anyOf) || node.anyOf.length === 0)
        out.push(`${path}: anyOf is not a non-empty array`);
      else node.anyOf.forEach((branch, i) => visit(branch, `${path}/anyOf/${i}`, depth + 1));
      for (const key of Object.keys(node))
        if (!['anyOf', 'description', 'title'].includes(key) && !(key === '$defs' && path === ''))
          out.push(`${path}: ${key} beside anyOf`);
      return;
    }
    const type = node.type;
    const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
    if (types === undefined || types.length === 0) {
      out.push(`${path}: has no type, anyOf or $ref`);
      return;
    }
    for (const t of types)
      if (typeof t !== 'string' || !JSON_TYPES.includes(t))
        out.push(`${path}: type ${JSON.stringify(t)} is not a JSON type`);
    if (new Set(types).size !== types.length) out.push(`${path}: type lists a name twice`);
    const values = Array.isArray(node.enum) ? node.enum : 'const' in node ? [node.const] : [];
    if ('enum' in node && !Array.isArray(node.enum)) out.push(`${path}: enum is not an array`);
    enumValues += values.length;
    for (const value of values) {
      const vt =
        value === null
          ? 'null'
          : Array.isArray(value)
            ? 'array'
            : typeof value === 'number'
              ? Number.isInteger(value)
                ? 'integer'
                : 'number'
              : typeof value;
      if (!types.includes(vt) && !(vt === 'integer' && types.includes('number')))
        out.push(
          `${path}: enum value ${JSON.stringify(value)} does not match type ${JSON.stringify(type)}`,
        );
    }
    if ('format' in node && !STRICT_FORMATS.includes(node.format as string))
      out.push(`${path}: format ${JSON.stringify(node.format)} is not supported`);
    if (types.includes('object')) {
      if (node.additionalProperties !== false)
        out.push(`${path}: object without additionalProperties: false`);
      if (!isNode(node.properties)) out.push(`${path}: object without properties`);
      else {
        const names = Object.keys(node.properties);
        properties += names.length;
        const required = Array.isArray(node.required) ? node.required : undefined;
        if (required === undefined) out.push(`${path}: object without required`);
        else {
          for (const name of names)
            if (!required.includes(name)) out.push(`${path}: property ${name} is not in required`);
          for (const name of required)
            if (typeof name !== 'string' || !names.includes(name))
              out.push(`${path}: required lists ${JSON.stringify(name)}, not a property`);
        }
        for (const name of names)
          visit(node.properties[name], `${path}/properties/${esc(name)}`, depth + 1);
      }
    }
    if (types.includes('array')) {
      if (!isNode(node.items)) out.push(`${path}: array without one items schema`);
      else visit(node.items, `${path}/items`, depth + 1);
    }
  };
  visit(schema, '', 1);
  for (const name of Object.keys(defs)) visit(defs[name], `/$defs/${esc(name)}`, 1);
  if (properties > 5000) out.push(`(root): ${properties} properties, more than 5000`);
  if (enumValues > 1000) out.push(`(root): ${enumValues} enum values, more than 1000`);
  return out;
}

// Gemini's Schema object (ai.google.dev/api/caching#Schema and the Gen AI SDK's `Schema` type).
const GEMINI_FIELDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);
const GEMINI_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'];
const GEMINI_FORMATS: Record<string, string[]> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
};

/** Violations of Gemini's schema subset. */
export function geminiViolations(schema: unknown): string[] {
  const out: string[] = [];
  if (!isNode(schema)) return ['(root): not an object'];
  if (schema.type !== 'object')
    out.push(`(root): type is ${JSON.stringify(schema.type)}, not "object"`);
  const visit = (node: unknown, path: string): void => {
    if (!isNode(node)) {
      out.push(`${path}: schema is ${JSON.stringify(node)}, not an object`);
      return;
    }
    for (const key of Object.keys(node))
      if (!GEMINI_FIELDS.has(key)) out.push(`${path}: field ${key} is not in Gemini's Schema`);
    const type = node.type;
    if (
      type !== undefined &&
      (typeof type !== 'string' || !GEMINI_TYPES.includes(type.toLowerCase()))
    )
      out.push(`${path}: type ${JSON.stringify(type)} is not one Gemini type`);
    if ('nullable' in node && typeof node.nullable !== 'boolean')
      out.push(`${path}: nullable is not a boolean`);
    if (
      'enum' in node &&
      (!Array.isArray(node.enum) || !node.enum.every((v) => typeof v === 'string'))
    )
      out.push(`${path}: enum is not a list of strings`);
    if ('format' in node && !(GEMINI_FORMATS[String(type)] ?? []).includes(node.format as string))
      out.push(
        `${path}: format ${JSON.stringify(node.format)} is not supported for type ${JSON.stringify(type)}`,
      );
    for (const key of ['description', 'title', 'pattern'])
      if (key in node && typeof node[key] !== 'string') out.push(`${path}: ${key} is not a string`);
    if ('properties' in node) {
      if (!isNode(node.properties)) out.push(`${path}: properties is not an object`);
      else
        for (const name of Object.keys(node.properties))
          visit(node.properties[name], `${path}/properties/${esc(name)}`);
    }
    if ('required' in node) {
      const props = isNode(node.properties) ? node.properties : {};
      if (!Array.isArray(node.required)) out.push(`${path}: required is not an array`);
      else
        for (const name of node.required)
          if (typeof name !== 'string' || !Object.hasOwn(props, name))
            out.push(`${path}: required lists ${JSON.stringify(name)}, not a property`);
    }
    if ('items' in node) visit(node.items, `${path}/items`);
    if ('anyOf' in node) {
      if (!Array.isArray(node.anyOf)) out.push(`${path}: anyOf is not an array`);
      else node.anyOf.forEach((branch, i) => visit(branch, `${path}/anyOf/${i}`));
    }
  };
  visit(schema, '');
  return out;
}

/** Violations of Anthropic's `input_schema` rules as applied here (object root, no references). */
export function anthropicViolations(schema: unknown): string[] {
  const out: string[] = [];
  if (!isNode(schema)) return ['(root): not an object'];
  if (schema.type !== 'object')
    out.push(`(root): type is ${JSON.stringify(schema.type)}, not "object"`);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    if (key in schema) out.push(`(root): has ${key} at the top level`);
  walk(schema, '', (node, path) => {
    for (const key of ['$ref', '$defs', 'definitions', '$dynamicRef', '$recursiveRef'])
      if (key in node) out.push(`${path}: has ${key}`);
    if ('type' in node) {
      const types = Array.isArray(node.type) ? node.type : [node.type];
      for (const t of types)
        if (typeof t !== 'string' || !JSON_TYPES.includes(t))
          out.push(`${path}: type ${JSON.stringify(t)} is not a JSON type`);
    }
  });
  return out;
}

/** Violations of OpenAI's rules for non-strict function parameters. */
export function openAiViolations(schema: unknown): string[] {
  const out: string[] = [];
  if (!isNode(schema)) return ['(root): not an object'];
  if (schema.type !== 'object')
    out.push(`(root): type is ${JSON.stringify(schema.type)}, not "object"`);
  if (!isNode(schema.properties)) out.push('(root): no properties');
  for (const key of ['anyOf', 'oneOf', 'allOf', 'not', 'enum'])
    if (key in schema) out.push(`(root): has ${key} at the top level`);
  const defs = isNode(schema.$defs) ? schema.$defs : {};
  walk(schema, '', (node, path) => {
    if ('$schema' in node) out.push(`${path}: has $schema`);
    if (path !== '' && ('$defs' in node || 'definitions' in node))
      out.push(`${path}: $defs below the root`);
    if ('$ref' in node) {
      const ref = node.$ref;
      const ok =
        ref === '#' ||
        (typeof ref === 'string' &&
          ref.startsWith('#/$defs/') &&
          Object.hasOwn(defs, ref.slice(8).replace(/~1/g, '/').replace(/~0/g, '~')));
      if (!ok)
        out.push(`${path}: $ref ${JSON.stringify(ref)} does not point into the root's $defs`);
    }
  });
  return out;
}

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SCHEMA_ONE = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
];

/** Every schema object of a JSON Schema, with its pointer. */
function walk(node: Node, path: string, visit: (node: Node, path: string) => void): void {
  visit(node, path);
  for (const key of SCHEMA_MAPS) {
    const map = node[key];
    if (isNode(map))
      for (const name of Object.keys(map))
        if (isNode(map[name])) walk(map[name], `${path}/${key}/${esc(name)}`, visit);
  }
  for (const key of SCHEMA_LISTS) {
    const list = node[key];
    if (Array.isArray(list))
      list.forEach((item, i) => isNode(item) && walk(item, `${path}/${key}/${i}`, visit));
  }
  for (const key of SCHEMA_ONE) {
    const child = node[key];
    if (isNode(child)) walk(child, `${path}/${key}`, visit);
    else if (key === 'items' && Array.isArray(child))
      child.forEach((item, i) => isNode(item) && walk(item, `${path}/items/${i}`, visit));
  }
}
