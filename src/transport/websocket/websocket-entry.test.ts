import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { staticImportGraph } from '../../../test/helpers/import-graph.js';

const srcDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('the ws entry', () => {
  it('uses only Node built-ins and the ws library', () => {
    const { external, files } = staticImportGraph(resolve(srcDir, 'ws.ts'));
    expect([...external].filter((specifier) => !specifier.startsWith('node:'))).toEqual(['ws']);
    expect([...files].some((file) => file.includes('/transport/stdio/'))).toBe(false);
  });

  it('is not reachable from the root entry', () => {
    const { external, files } = staticImportGraph(resolve(srcDir, 'index.ts'));
    expect(external).not.toContain('ws');
    expect([...files].some((file) => file.includes('/transport/websocket/'))).toBe(false);
  });
});
