import { spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { tempDir } from '../../test/helpers/scratch.js';
import { McpHost } from '../host/mcp-host.js';
import { createApiServer } from './api-server.js';

const TOKEN = 'a-token-of-sixteen-or-more';

describe('ApiServer listeners', () => {
  it('refuses a TCP port without a token, off loopback, and a token too short', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost();
    await using open = createApiServer({ host });
    await expect(open.listen({ port: 0 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/needs a token/),
    });
    await using guarded = createApiServer({ host, token: TOKEN });
    await expect(guarded.listen({ port: 0, host: '0.0.0.0' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/loopback only/),
    });
    const { address, port } = await guarded.listen({ port: 0 });
    expect(address).toBe(`127.0.0.1:${port}`);
    expect(() => createApiServer({ host, token: 'short' })).toThrow(/16 or more/);
  });

  it('makes its socket 0600, replaces a stale one, refuses a live one or a plain file, and removes it on close', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using host = new McpHost();
    const path = join(dir.path, 'api.sock');

    // A stale socket: its listener was killed before it could remove it.
    spawnSync(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    expect(statSync(path).isSocket()).toBe(true);
    const api = createApiServer({ host });
    await api.listen({ socket: path });
    expect(statSync(path).mode & 0o777).toBe(0o600);

    await using other = createApiServer({ host });
    await expect(other.listen({ socket: path })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/in use/),
    });
    const plain = join(dir.path, 'plain');
    writeFileSync(plain, 'not a socket');
    await expect(other.listen({ socket: plain })).rejects.toMatchObject({
      message: expect.stringMatching(/not a socket/),
    });

    await api.close();
    await api.close();
    expect(existsSync(path)).toBe(false);
    await expect(api.listen({ socket: path })).rejects.toMatchObject({
      code: 'CONNECTION_CLOSED',
    });
  });
});
