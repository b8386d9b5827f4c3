import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const staticImport =
  /^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm;

/**
 * Every source file an entry reaches through static imports (type-only ones too), and every
 * package it names: what `import`ing the entry would load, read from the TypeScript sources.
 */
export function staticImportGraph(entryFile: string): {
  files: Set<string>;
  external: Set<string>;
} {
  const files = new Set<string>();
  const external = new Set<string>();
  const queue = [entryFile];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(staticImport)) {
      const specifier = match[1] ?? match[2]!;
      if (specifier.startsWith('.'))
        queue.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else external.add(specifier);
    }
  }
  return { files, external };
}
