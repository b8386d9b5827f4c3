import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { staticImportGraph } from '../test/helpers/import-graph.js';

const srcDir = dirname(fileURLToPath(import.meta.url));
const importGraph = (entry: string) => staticImportGraph(resolve(srcDir, entry));

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

  it('the http entry uses Node built-ins, undici and eventsource-parser only', () => {
    const { external } = importGraph('http.ts');
    const allowed = new Set(['undici', 'eventsource-parser']);
    expect([...external].every((s) => s.startsWith('node:') || allowed.has(s))).toBe(true);
    expect(external).toContain('undici');
  });

  it("the config entry uses Node built-ins, the two parsers and the transports' dependencies only", () => {
    const { external } = importGraph('config.ts');
    // yaml and jsonc-parser read files; undici, eventsource-parser and ws come with the transports
    // that resolving a config builds.
    const allowed = new Set(['yaml', 'jsonc-parser', 'undici', 'eventsource-parser', 'ws']);
    expect([...external].filter((s) => !s.startsWith('node:') && !allowed.has(s))).toEqual([]);
    expect(external).toContain('yaml');
    expect(external).toContain('jsonc-parser');
  });
});
