/**
 * In-place edits of JSON data at a JSON Pointer (RFC 6901), for tests that derive one tool
 * definition (or any JSON document) from another without casting through `any`.
 */

function parent(root: unknown, pointer: string): { container: unknown; key: string } {
  const segments = pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  const key = segments.pop();
  if (key === undefined || pointer === '') throw new Error(`json-edit: no parent for '${pointer}'`);
  let container = root;
  for (const segment of segments) {
    if (typeof container !== 'object' || container === null)
      throw new Error(`json-edit: '${pointer}' runs through a non-container`);
    container = (container as Record<string, unknown>)[segment];
  }
  if (typeof container !== 'object' || container === null)
    throw new Error(`json-edit: the parent of '${pointer}' is not a container`);
  return { container, key };
}

/** Sets the member (or array item) at `pointer`. */
export function setAt(root: unknown, pointer: string, value: unknown): void {
  const { container, key } = parent(root, pointer);
  (container as Record<string, unknown>)[key] = value;
}

/** Deletes the member at `pointer` (or removes the array item there). */
export function deleteAt(root: unknown, pointer: string): void {
  const { container, key } = parent(root, pointer);
  if (Array.isArray(container)) container.splice(Number(key), 1);
  else delete (container as Record<string, unknown>)[key];
}

/** The value at `pointer` (`''` is the root). */
export function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  const { container, key } = parent(root, pointer);
  return (container as Record<string, unknown>)[key];
}

/** Inserts `value` into the array at `pointer`, at `index` (default: the end). */
export function insertAt(root: unknown, pointer: string, value: unknown, index?: number): void {
  const array = valueAt(root, pointer);
  if (!Array.isArray(array)) throw new Error(`json-edit: '${pointer}' is not an array`);
  array.splice(index ?? array.length, 0, value);
}
