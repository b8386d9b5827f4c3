import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandProblem, spawnProblem } from './command-problem.js';

describe('commandProblem', () => {
  it('searches PATH for a bare name, checks a path as given, wants the execute bit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-host-command-'));
    try {
      const tool = join(dir, 'my-server');
      writeFileSync(tool, '#!/bin/sh\n');
      chmodSync(tool, 0o755);
      const plain = join(dir, 'not-executable');
      writeFileSync(plain, '');
      chmodSync(plain, 0o644);
      const folder = join(dir, 'folder');
      mkdirSync(folder);
      expect(commandProblem('my-server', { PATH: dir })).toBeUndefined();
      expect(commandProblem('my-server', { PATH: '/nonexistent' })).toEqual({
        reason: 'not-found',
        message: "command 'my-server' not found on PATH",
      });
      expect(commandProblem(tool, {})).toBeUndefined();
      expect(commandProblem('./my-server', {}, dir)).toBeUndefined();
      expect(commandProblem(join(dir, 'gone'), {})?.message).toBe(
        `command '${join(dir, 'gone')}' not found`,
      );
      expect(commandProblem(folder, {})).toMatchObject({
        reason: 'directory',
        message: `'${folder}' is a directory`,
      });
      expect(commandProblem(tool, {}, join(dir, 'nowhere'))).toMatchObject({
        reason: 'no-cwd',
        message: `working directory '${join(dir, 'nowhere')}' does not exist`,
      });
      // No execute bit: not runnable (root included: access(X_OK) wants one bit set).
      if (process.platform !== 'win32') {
        expect(commandProblem(plain, {})).toMatchObject({
          reason: 'not-executable',
          message: `permission denied running '${plain}'`,
        });
        expect(commandProblem('not-executable', { PATH: dir })?.reason).toBe('not-executable');
        expect(spawnProblem(plain, {}, undefined, 'EACCES')).toBe(
          `permission denied running '${plain}'`,
        );
        expect(spawnProblem(folder, {}, undefined, 'EACCES')).toBe(`'${folder}' is a directory`);
        // Runnable, yet ENOENT: the #! interpreter is missing.
        expect(spawnProblem(tool, {}, undefined, 'ENOENT')).toContain('its interpreter');
      }
      expect(spawnProblem(tool, {}, undefined, 'E2BIG')).toBe(`could not start '${tool}' (E2BIG)`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
