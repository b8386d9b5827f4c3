/**
 * Node's builtin modules as CommonJS hands them out, for code on a hot start. Importing one as an
 * ES module builds a namespace of every export, which reads the lazy ones (`node:fs` loads its
 * streams that way: about half a millisecond before a program on `mcp-host/stdio` can spawn its
 * server). `process.getBuiltinModule` (Node 20.16, 22.3) hands out the module itself. On an older
 * Node the module is imported once, in the background: `builtin` answers undefined until it has
 * loaded (its callers do without, or wait for `whenBuiltin`).
 */
const loaded = new Map<string, unknown>();
const importing = new Map<string, Promise<unknown>>();

/** The builtin module `id` (`node:fs`), or undefined while an older Node still imports it. */
export function builtin<T>(id: string): T | undefined {
  const module = known(id);
  if (module === undefined) whenBuiltin(id).catch(() => {});
  return module as T | undefined;
}

/** The builtin module `id`, once it has loaded (at once where `builtin` has it). */
export function whenBuiltin<T>(id: string): Promise<T> {
  const module = known(id);
  if (module !== undefined) return Promise.resolve(module as T);
  let pending = importing.get(id);
  if (pending === undefined) {
    pending = import(id).then(
      (module: unknown) => {
        loaded.set(id, module);
        return module;
      },
      (error: unknown) => {
        importing.delete(id);
        throw error;
      },
    );
    importing.set(id, pending);
  }
  return pending as Promise<T>;
}

/** The module if it is at hand: loaded before, or handed out by `process.getBuiltinModule`. */
function known(id: string): unknown {
  const module = loaded.get(id) ?? process.getBuiltinModule?.(id);
  if (module !== undefined) loaded.set(id, module);
  return module;
}
