/**
 * Matching a URI against a resource template (RFC 6570), as far as routing a read needs: level 1,
 * simple string expansion (`{name}`). An expanded value has every reserved character
 * percent-encoded, so a variable matches one or more characters other than `/`, `?` and `#`.
 */

/** The most characters of a template worth compiling (longer ones match nothing). */
const MAX_TEMPLATE_CHARS = 2048;

const cache = new Map<string, RegExp | null>();
const MAX_CACHED = 256;

/**
 * Whether `uri` is an expansion of `template`: literal parts equal, each `{name}` one or more
 * characters but `/`, `?` and `#`. A template with any other expression (an operator such as `{+x}`
 * or `{?x}`, several variables, a modifier) matches nothing.
 */
export function matchesUriTemplate(template: string, uri: string): boolean {
  const pattern = compiled(template);
  return pattern !== null && pattern.test(uri);
}

function compiled(template: string): RegExp | null {
  let pattern = cache.get(template);
  if (pattern !== undefined) return pattern;
  pattern = compile(template);
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(template, pattern);
  return pattern;
}

function compile(template: string): RegExp | null {
  if (template.length > MAX_TEMPLATE_CHARS) return null;
  let source = '^';
  let rest = template;
  while (rest.length > 0) {
    const open = rest.indexOf('{');
    const literal = open === -1 ? rest : rest.slice(0, open);
    if (literal.includes('}')) return null;
    source += literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    if (open === -1) break;
    const close = rest.indexOf('}', open);
    if (close === -1) return null;
    if (!/^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/.test(rest.slice(open + 1, close))) return null;
    source += '[^/?#]+';
    rest = rest.slice(close + 1);
  }
  return new RegExp(`${source}$`);
}
