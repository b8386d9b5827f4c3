import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const srcDir = dirname(fileURLToPath(import.meta.url));
const importPattern =
  /^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm;

/** Every module the entry reaches through static imports, and every external specifier. */
function importGraph(entry: string): { files: Set<string>; external: Set<string> } {
  const files = new Set<string>();
  const external = new Set<string>();
  const queue = [resolve(srcDir, entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(importPattern)) {
      const specifier = match[1] ?? match[2]!;
      if (specifier.startsWith('.'))
        queue.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else external.add(specifier);
    }
  }
  return { files, external };
}

describe('entry points', () => {
  it('the root entry imports no Node-only module and no dependency', () => {
    const { external, files } = importGraph('index.ts');
    expect([...external]).toEqual([]);
    expect([...files].some((file) => file.includes('/transport/stdio/'))).toBe(false);
  });

  it('the testing entry is platform-neutral too', () => {
    expect([...importGraph('testing/index.ts').external]).toEqual([]);
  });

  it('the node entry uses only Node built-ins', () => {
    const { external } = importGraph('node.ts');
    expect([...external].every((specifier) => specifier.startsWith('node:'))).toBe(true);
  });

  it('the stdio entry uses only Node built-ins', () => {
    const { external } = importGraph('stdio.ts');
    expect([...external].every((specifier) => specifier.startsWith('node:'))).toBe(true);
    expect(external).toContain('node:child_process');
  });
});
