/**
 * The shape rules of src/ (STYLE.md, "Naming" and "Layout"), checked on every `npm test`: no
 * import cycles (`import type` edges included), no re-exports outside the package's entry files,
 * each name declared by exactly one module, and no folder hiding more than 20 source files.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCycles, sourceModules } from '../test/helpers/source-shape.js';

const srcDir = dirname(fileURLToPath(import.meta.url));
const modules = sourceModules(srcDir);

/** The package's entry files (package.json `exports` and `bin`): the only re-export lists. */
const entries = new Set(
  [
    ...Object.values(
      (
        JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
          exports: Record<string, string | { default: string }>;
        }
      ).exports,
    ),
  ]
    .map((target) => (typeof target === 'string' ? target : target.default))
    .filter((target) => target.startsWith('./dist/') && target.endsWith('.js'))
    .map((target) => target.slice('./dist/'.length).replace(/\.js$/, '.ts'))
    .concat('cli/main.ts'),
);

describe('the shape of src/', () => {
  it('knows the entry files', () => {
    expect([...entries].sort()).toEqual(
      expect.arrayContaining([
        'index.ts',
        'stdio.ts',
        'config.ts',
        'testing/index.ts',
        'cli/main.ts',
      ]),
    );
    for (const entry of entries) expect(modules.has(entry), entry).toBe(true);
  });

  it('has no import cycle, type-only imports included', () => {
    expect(importCycles(modules)).toEqual([]);
  });

  it('re-exports only from entry files: each module is imported from where its names are declared', () => {
    const shims = [...modules.values()]
      .filter((module) => !entries.has(module.path) && module.reexports.length > 0)
      .map((module) => `${module.path}: ${module.reexports.join(' ')}`);
    expect(shims).toEqual([]);
  });

  it('declares each exported name in exactly one module', () => {
    const declaredIn = new Map<string, string[]>();
    for (const module of modules.values())
      for (const name of module.declares)
        declaredIn.set(name, [...(declaredIn.get(name) ?? []), module.path]);
    const twice = [...declaredIn]
      .filter(([, paths]) => paths.length > 1)
      .map(([name, paths]) => `${name}: ${paths.join(', ')}`);
    expect(twice).toEqual([]);
  });

  it("writes the `server '<name>': ` prefix of messages in one place (aboutServer)", () => {
    const byHand = [...modules.keys()]
      .filter((path) => path !== 'errors/mcp-host-error.ts')
      .filter((path) =>
        /server '\$\{[^}]+\}': /.test(readFileSync(new URL(path, `file://${srcDir}/`), 'utf8')),
      );
    expect(byHand).toEqual([]);
  });

  it('has no folder of more than 20 source files', () => {
    const perFolder = new Map<string, number>();
    for (const path of modules.keys()) {
      const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '.';
      perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1);
    }
    expect([...perFolder].filter(([, count]) => count > 20)).toEqual([]);
  });
});
