import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import { tempDir } from '../../../test/helpers/scratch.js';
import { ConfigWatcher, type WatchError } from './config-watcher.js';

function nextChange(watcher: ConfigWatcher): Promise<void> {
  return new Promise((resolve) => {
    const subscription = watcher.onChange(() => {
      subscription.dispose();
      resolve();
    });
  });
}

describe('ConfigWatcher', () => {
  it('sees a file written, renamed over, deleted and created again; close leaves nothing', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = join(dir.path, 'mcp.json');
    await writeFile(file, '{}');
    const watcher = new ConfigWatcher([file], { debounceMs: 10 });
    try {
      watcher.start();

      let next = nextChange(watcher);
      await writeFile(file, '{"servers":{}}');
      await next;

      next = nextChange(watcher);
      const temporary = join(dir.path, '.mcp.json.tmp');
      await writeFile(temporary, '{"servers":{"a":{}}}');
      await rename(temporary, file);
      await next;

      next = nextChange(watcher);
      await rm(file);
      await next;

      next = nextChange(watcher);
      await writeFile(file, '{}');
      await next;
    } finally {
      watcher.close();
    }
  });

  it('reports a directory it cannot watch, and still watches the others', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = join(dir.path, 'mcp.json');
    const errors: WatchError[] = [];
    const watcher = new ConfigWatcher([join(dir.path, 'missing', 'mcp.json'), file], {
      debounceMs: 10,
    });
    watcher.onError((error) => errors.push(error));
    try {
      watcher.start();
      expect(errors.map((e) => e.directory)).toEqual([join(dir.path, 'missing')]);
      const next = nextChange(watcher);
      await writeFile(file, '{}');
      await next;
    } finally {
      watcher.close();
      watcher.close();
    }
  });
});
