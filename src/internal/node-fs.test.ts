import * as fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as NodeFs from './node-fs.js';

/** A fresh copy of the module (its cached `fs` starts empty). */
async function freshNodeFs(): Promise<typeof NodeFs> {
  vi.resetModules();
  return import('./node-fs.js');
}

describe('nodeFs', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('hands out the fs module from process.getBuiltinModule at once', async () => {
    const { nodeFs } = await freshNodeFs();
    const module = nodeFs();
    expect(module?.readdirSync).toBe(fs.readdirSync);
    expect(nodeFs()).toBe(module);
  });

  it('without process.getBuiltinModule (Node before 20.16), answers once the import is done', async () => {
    vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    const { nodeFs } = await freshNodeFs();
    expect(nodeFs()).toBeUndefined();
    await vi.waitFor(() => expect(nodeFs()?.readdirSync).toBe(fs.readdirSync));
  });
});
