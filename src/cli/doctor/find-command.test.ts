import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCommand } from './find-command.js';

describe('findCommand', () => {
  it('searches PATH for a bare name, checks a path as given, wants the execute bit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-host-doctor-'));
    try {
      const tool = join(dir, 'my-server');
      writeFileSync(tool, '#!/bin/sh\n');
      chmodSync(tool, 0o755);
      const plain = join(dir, 'not-executable');
      writeFileSync(plain, '');
      chmodSync(plain, 0o644);
      expect(await findCommand('my-server', { PATH: dir })).toBe(true);
      expect(await findCommand('my-server', { PATH: '/nonexistent' })).toBe(false);
      expect(await findCommand(tool, {})).toBe(true);
      // No execute bit: not runnable (root included: access(X_OK) wants one bit set).
      if (process.platform !== 'win32') {
        expect(await findCommand(plain, {})).toBe(false);
        expect(await findCommand('not-executable', { PATH: dir })).toBe(false);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
