import type { SchemaDiagnostics } from './schema-diagnostics.js';
import {
  forEachSubschema,
  isJsonSchemaNode,
  pointerToken,
  setMember,
  shortJson,
  type JsonSchemaNode,
} from './json-schema-node.js';

/** Keywords a reference may be written with; all become `$ref` (draft 2019/2020 dynamic refs too). */
const refKeywords = ['$ref', '$recursiveRef', '$dynamicRef'] as const;

/** The schema with every reference in one form, and the references that could not be resolved. */
export interface HoistedRefs {
  schema: JsonSchemaNode;
  /** References that are not local to the schema (or point at nothing), as written. */
  unresolved: string[];
}

/**
 * Rewrites every local reference of a schema (a private copy, changed in place) to point at the
 * root's `$defs`: `#/$defs/X` stays, `#/definitions/X` becomes `#/$defs/X` (the `definitions` move
 * into `$defs`), any other JSON Pointer or anchor (`#/properties/a`, `#/$defs/X/items`,
 * `#name`, a nested `$defs`) gets a copy of its target in `$defs` under a new name, and `#` (the
 * root) stays. Nested `$defs` and `definitions` are removed. A `$ref` at the root is replaced by
 * its target (with the root's other keywords). A reference that does not resolve inside the schema
 * (another document, a URL, a pointer to nothing) is never fetched: it is removed (the place then
 * accepts any value) and listed in `unresolved`. Work is linear in the schema's size.
 */
export function hoistRefs(root: JsonSchemaNode, diagnostics: SchemaDiagnostics): HoistedRefs {
  const sites: { owner: JsonSchemaNode; path: string[]; ref: string }[] = [];
  const anchors = new Map<string, JsonSchemaNode>();
  const nodePaths = new Map<JsonSchemaNode, string[]>();
  const collect = (node: JsonSchemaNode, path: string[]): void => {
    if (nodePaths.has(node)) return;
    nodePaths.set(node, path);
    for (const keyword of refKeywords) {
      const ref = node[keyword];
      if (typeof ref !== 'string') continue;
      if (keyword !== '$ref') {
        delete node[keyword];
        if (node.$ref === undefined) node.$ref = ref;
        else continue;
      }
      sites.push({ owner: node, path, ref });
    }
    for (const keyword of ['$anchor', '$dynamicAnchor'])
      if (typeof node[keyword] === 'string') anchors.set(node[keyword], node);
    if (typeof node.$id === 'string' && node.$id.startsWith('#'))
      anchors.set(node.$id.slice(1), node);
    forEachSubschema(node, (child, tokens) => collect(child, [...path, ...tokens]));
  };
  collect(root, []);

  const rootId = typeof root.$id === 'string' ? root.$id.replace(/#.*$/, '') : undefined;
  const defs: JsonSchemaNode = isJsonSchemaNode(root.$defs) ? root.$defs : {};
  const names = new Map<JsonSchemaNode, string>();
  for (const name of Object.keys(defs)) {
    const def = defs[name];
    if (isJsonSchemaNode(def)) names.set(def, name);
  }
  const legacy = isJsonSchemaNode(root.definitions) ? root.definitions : undefined;
  const hoisted: JsonSchemaNode[] = [];
  const nameFor = (target: JsonSchemaNode, hint: string, fromLegacy: boolean): string => {
    const known = names.get(target);
    if (known !== undefined) return known;
    const base = hint.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 48) || 'def';
    let name = base;
    for (let n = 2; Object.hasOwn(defs, name); n++) name = `${base}_${n}`;
    names.set(target, name);
    if (fromLegacy) setMember(defs, name, target);
    else hoisted.push(target);
    return name;
  };

  const unresolved: string[] = [];
  // Every target is found before any reference is rewritten.
  const targets = sites.map((site) => follow(root, site.ref, rootId, anchors));
  sites.forEach((site, index) => {
    const target = targets[index];
    if (target === undefined) {
      delete site.owner.$ref;
      if (unresolved.length < 20) unresolved.push(site.ref);
      diagnostics.add(
        site.path,
        'removed-ref',
        `removed the reference ${shortJson(site.ref)}, which does not resolve inside the schema and is never fetched (any value is accepted there)`,
      );
      return;
    }
    if (target === root) {
      site.owner.$ref = '#';
      return;
    }
    const path = nodePaths.get(target) ?? [];
    const inLegacy =
      legacy !== undefined &&
      path.length === 2 &&
      path[0] === 'definitions' &&
      legacy[path[1] ?? ''] === target;
    const name = nameFor(target, path[path.length - 1] ?? 'def', inLegacy);
    const rewritten = `#/$defs/${pointerToken(name)}`;
    if (rewritten !== site.ref) {
      site.owner.$ref = rewritten;
      diagnostics.add(
        site.path,
        'rewrote-ref',
        `rewrote the reference ${shortJson(site.ref)} to ${shortJson(rewritten)}, as references must point into the root's $defs`,
      );
    }
  });
  // Copies, so that a target left in place and its copy in $defs are separate nodes; made after
  // every reference was rewritten, so the copies hold rewritten references.
  for (const target of hoisted) {
    const name = names.get(target) ?? 'def';
    setMember(defs, name, structuredClone(target));
  }
  if (legacy !== undefined) {
    delete root.definitions;
    diagnostics.add(
      ['definitions'],
      'moved-definitions',
      'moved the used entries of definitions into $defs',
    );
  }
  removeNestedDefs(root, true);
  for (const name of Object.keys(defs)) {
    const def = defs[name];
    if (isJsonSchemaNode(def)) removeNestedDefs(def, false);
  }
  if (Object.keys(defs).length > 0) root.$defs = defs;
  else delete root.$defs;

  return { schema: inlineRootRef(root, diagnostics), unresolved };
}

/**
 * The node a local reference points at, through targets that are themselves only a reference
 * (a bounded chain), or undefined.
 */
function follow(
  root: JsonSchemaNode,
  ref: string,
  rootId: string | undefined,
  anchors: Map<string, JsonSchemaNode>,
): JsonSchemaNode | undefined {
  let target = resolve(root, ref, rootId, anchors);
  for (let hops = 0; hops < 32 && target !== undefined; hops++) {
    const next = target.$ref;
    if (typeof next !== 'string' || Object.keys(target).length !== 1) return target;
    target = resolve(root, next, rootId, anchors);
  }
  return target !== undefined && typeof target.$ref === 'string' && Object.keys(target).length === 1
    ? undefined
    : target;
}

/** The node a local reference points at, or undefined. */
function resolve(
  root: JsonSchemaNode,
  ref: string,
  rootId: string | undefined,
  anchors: Map<string, JsonSchemaNode>,
): JsonSchemaNode | undefined {
  const hash = ref.indexOf('#');
  const documentPart = hash === -1 ? ref : ref.slice(0, hash);
  if (documentPart !== '' && documentPart !== rootId) return undefined;
  const fragment = hash === -1 ? '' : ref.slice(hash + 1);
  let decoded: string;
  try {
    decoded = decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
  if (decoded === '') return root;
  if (!decoded.startsWith('/')) return anchors.get(decoded);
  let node: unknown = root;
  for (const raw of decoded.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = /^(0|[1-9]\d*)$/.test(token) ? node[Number(token)] : undefined;
    else if (isJsonSchemaNode(node)) node = Object.hasOwn(node, token) ? node[token] : undefined;
    else return undefined;
  }
  return isJsonSchemaNode(node) ? node : undefined;
}

function removeNestedDefs(node: JsonSchemaNode, isRoot: boolean): void {
  const stack: { node: JsonSchemaNode; isRoot: boolean }[] = [{ node, isRoot }];
  const seen = new Set<JsonSchemaNode>();
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === undefined || seen.has(next.node)) continue;
    seen.add(next.node);
    if (!next.isRoot) {
      delete next.node.$defs;
      delete next.node.definitions;
    }
    forEachSubschema(next.node, (child, tokens) => {
      if (next.isRoot && tokens[0] === '$defs') return;
      stack.push({ node: child, isRoot: false });
    });
  }
}

const annotationKeywords = new Set(['$schema', '$id', '$defs', '$comment', 'title', 'description']);

/** The root with a root `$ref` replaced by (a copy of) its target, the root's own keywords kept. */
function inlineRootRef(root: JsonSchemaNode, diagnostics: SchemaDiagnostics): JsonSchemaNode {
  const ref = root.$ref;
  if (typeof ref !== 'string') return root;
  delete root.$ref;
  if (ref === '#') return root;
  const defs = isJsonSchemaNode(root.$defs) ? root.$defs : {};
  const name = ref.slice('#/$defs/'.length).replace(/~1/g, '/').replace(/~0/g, '~');
  const target = defs[name];
  if (!isJsonSchemaNode(target)) return root;
  diagnostics.add(
    [],
    'inlined-root-ref',
    `replaced the root reference ${shortJson(ref)} by its target, as the root must be the object schema itself`,
  );
  if (Object.keys(root).every((key) => annotationKeywords.has(key))) {
    const inlined: JsonSchemaNode = { ...structuredClone(target) };
    for (const key of Object.keys(root))
      if (key !== 'title' || inlined.title === undefined) setMember(inlined, key, root[key]);
    return inlined;
  }
  const allOf: unknown[] = Array.isArray(root.allOf) ? (root.allOf as unknown[]) : [];
  root.allOf = [{ $ref: ref }, ...allOf];
  return root;
}
