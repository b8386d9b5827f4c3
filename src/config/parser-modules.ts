/**
 * The two text parsers, each loaded the first time a document of its format is read or written:
 * `yaml` alone costs ~25 ms to load, and a JSON config never needs it (nor a YAML one
 * `jsonc-parser`). They are `require`d, so that `parseConfigText` and the writers stay
 * synchronous; both packages ship CommonJS for Node, the very files an `import` of them loads.
 */
import { createRequire } from 'node:module';
import type * as Jsonc from 'jsonc-parser';
import type * as Yaml from 'yaml';

const load = createRequire(import.meta.url);
let yaml: typeof Yaml | undefined;
let jsonc: typeof Jsonc | undefined;

/** The `yaml` package, loaded on first use. */
export function yamlModule(): typeof Yaml {
  return (yaml ??= load('yaml') as typeof Yaml);
}

/** The `jsonc-parser` package, loaded on first use (unless `useJsoncModule` gave it). */
export function jsoncModule(): typeof Jsonc {
  return (jsonc ??= load('jsonc-parser') as typeof Jsonc);
}

/**
 * Gives the `jsonc-parser` module to use from now on instead of loading the package: the command
 * line bundles its ESM build (one file, loaded with the CLI's own code, instead of six CommonJS
 * files; about a third of the load time).
 */
export function useJsoncModule(module: typeof Jsonc): void {
  jsonc = module;
}
