import * as fs from 'node:fs';
import * as util from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Builtin from './builtin.js';

/** A fresh copy of the module (nothing loaded yet). */
async function freshBuiltin(): Promise<typeof Builtin> {
  vi.resetModules();
  return import('./builtin.js');
}

describe('builtin', () => {
  afterEach(() => vi.restoreAllMocks());

  it('hands out a module from process.getBuiltinModule at once', async () => {
    const { builtin, whenBuiltin } = await freshBuiltin();
    const module = builtin<typeof fs>('node:fs');
    expect(module?.readdirSync).toBe(fs.readdirSync);
    expect(await whenBuiltin('node:fs')).toBe(module);
  });

  it('where process.getBuiltinModule gives nothing (as on Node before 20.16), answers once the import is done', async () => {
    vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined);
    const { builtin, whenBuiltin } = await freshBuiltin();
    expect(builtin('node:util')).toBeUndefined();
    const module = await whenBuiltin<typeof util>('node:util');
    expect(module.debuglog).toBe(util.debuglog);
    expect(builtin<typeof util>('node:util')).toBe(module);
  });

  it('refuses a module that does not exist, and tries again on the next call', async () => {
    vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined);
    const { builtin, whenBuiltin } = await freshBuiltin();
    expect(builtin('node:no-such-module')).toBeUndefined();
    const first = whenBuiltin('node:no-such-module');
    // While the import is under way, every caller waits on that one import.
    expect(whenBuiltin('node:no-such-module')).toBe(first);
    await expect(first).rejects.toThrow();
    // A failed import is not kept: the next call is a new attempt.
    const second = whenBuiltin('node:no-such-module');
    expect(second).not.toBe(first);
    await expect(second).rejects.toThrow();
  });
});
