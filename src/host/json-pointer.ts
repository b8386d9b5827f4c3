/** JSON Pointers (RFC 6901), as tool diffs use them. */

/** Escapes one JSON Pointer segment (RFC 6901): `~` as `~0`, `/` as `~1`. */
export function pointerSegment(segment: string | number): string {
  return String(segment).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The segments of a JSON Pointer, unescaped. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}
