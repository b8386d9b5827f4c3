/**
 * The two text parsers, each loaded the first time a document needs it: `yaml` (alone ~25 ms to
 * load) for a YAML document, `jsonc-parser` for a JSON or JSONC document plain-json.ts does not
 * read (one with something to report) and for the writers. They are `require`d, so that
 * `parseConfigText` and the writers stay synchronous; both packages ship CommonJS for Node, the
 * very files an `import` of them loads.
 */
import { createRequire } from 'node:module';
import type * as Jsonc from 'jsonc-parser';
import type * as Yaml from 'yaml';

let require: NodeJS.Require | undefined;
let yaml: typeof Yaml | undefined;
let jsonc: typeof Jsonc | undefined;

/** `require` for this module, made on first need (making one costs a fraction of a millisecond). */
function load(id: string): unknown {
  return (require ??= createRequire(import.meta.url))(id);
}

/** The `yaml` package, loaded on first use. */
export function yamlModule(): typeof Yaml {
  return (yaml ??= load('yaml') as typeof Yaml);
}

/**
 * The `jsonc-parser` package, loaded on first use: a well-formed JSON config never needs it
 * (plain-json.ts reads those); a document with a syntax error and the config writers do.
 */
export function jsoncModule(): typeof Jsonc {
  return (jsonc ??= load('jsonc-parser') as typeof Jsonc);
}
