/**
 * Watches config files for edits without polling: `node:fs` `watch` on each file's directory
 * rather than on the file, because editors save by writing a temporary file and renaming it over
 * the old one (a watch on the file itself would keep watching the old, unlinked inode). Events are
 * filtered by file name and debounced: one `onChange` after `debounceMs` of quiet.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { Emitter } from '../../internal/emitter.js';

export const DEFAULT_RELOAD_DEBOUNCE_MS = 100;

/** A directory that cannot be watched (missing, no permission) or whose watch failed. */
export interface WatchError {
  directory: string;
  error: unknown;
}

export class ConfigWatcher {
  readonly #files: readonly string[];
  readonly #debounceMs: number;
  readonly #watchers: FSWatcher[] = [];
  readonly #changeEmitter = new Emitter<void>();
  readonly #errorEmitter = new Emitter<WatchError>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  /** Some watched file was created, written, renamed over or deleted (debounced). */
  readonly onChange = this.#changeEmitter.event;
  /** A directory cannot be watched (its files' edits will be missed). */
  readonly onError = this.#errorEmitter.event;

  /** `files` are absolute paths. */
  constructor(files: readonly string[], options: { debounceMs?: number } = {}) {
    this.#files = files;
    this.#debounceMs = options.debounceMs ?? DEFAULT_RELOAD_DEBOUNCE_MS;
  }

  /** Starts the watches (one per directory); problems go to `onError`. */
  start(): void {
    const byDirectory = new Map<string, Set<string>>();
    for (const file of this.#files) {
      const names = byDirectory.get(dirname(file)) ?? new Set<string>();
      names.add(basename(file));
      byDirectory.set(dirname(file), names);
    }
    for (const [directory, names] of byDirectory) {
      let watcher: FSWatcher;
      try {
        watcher = watch(directory, { persistent: true }, (_event, name) => {
          // Some platforms give no name: then any event in the directory counts.
          if (name === null || names.has(String(name))) this.#schedule();
        });
      } catch (error) {
        this.#errorEmitter.fire({ directory, error });
        continue;
      }
      watcher.on('error', (error) => {
        // The directory went away, say: nothing more will come from this watch.
        watcher.close();
        this.#errorEmitter.fire({ directory, error });
      });
      this.#watchers.push(watcher);
    }
  }

  /** Stops every watch and the pending debounce timer. Idempotent. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const watcher of this.#watchers.splice(0)) watcher.close();
    this.#changeEmitter.clear();
    this.#errorEmitter.clear();
  }

  #schedule(): void {
    if (this.#closed) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#changeEmitter.fire();
    }, this.#debounceMs);
    this.#timer.unref?.();
  }
}
