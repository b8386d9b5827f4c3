import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/scratch.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { loadGatewayToken, readGatewayClientToken } from './gateway-token.js';

describe('the gateway token file', () => {
  it('is made once, mode 0600 in a 0700 directory, and read again after', async () => {
    using dir = tempDir();
    const state = join(dir.path, 'nested', 'state');
    const file = join(state, 'gateway-token');
    const made = await loadGatewayToken(file);
    expect(made).toMatchObject({
      path: join(state, 'gateway-token'),
      created: true,
      exposed: false,
    });
    expect(made.token).toMatch(/^[\w-]{43}$/);
    expect(statSync(made.path).mode & 0o777).toBe(0o600);
    expect(statSync(state).mode & 0o777).toBe(0o700);
    expect(readFileSync(made.path, 'utf8')).toBe(`${made.token}\n`);
    const again = await loadGatewayToken(file);
    expect(again).toEqual({ ...made, created: false });
  });

  it('says when the file is readable by others, and refuses a file without a token', async () => {
    using dir = tempDir();
    mkdirSync(dir.path, { recursive: true });
    const path = join(dir.path, 'gateway-token');
    writeFileSync(path, 'a-token-someone-configured\n');
    chmodSync(path, 0o644);
    expect(await loadGatewayToken(path)).toMatchObject({
      token: 'a-token-someone-configured',
      exposed: true,
    });
    writeFileSync(path, 'short\n');
    await expect(loadGatewayToken(path)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('delete it') as unknown,
    });
  });

  it("a named client's token is read, never made: a missing file is CONFIG_INVALID naming file and key", async () => {
    using dir = tempDir();
    const file = join(dir.path, 'alice.token');
    const key = 'gateway.clients.alice.tokenFile';
    const missing = await readGatewayClientToken(file, key).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(McpHostError);
    expect((missing as McpHostError).code).toBe('CONFIG_INVALID');
    expect((missing as McpHostError).message).toContain(
      `${key}: the token file ${file} does not exist`,
    );
    writeFileSync(file, 'alice-token-0123456789\n', { mode: 0o600 });
    expect(await readGatewayClientToken(file, key)).toEqual({
      token: 'alice-token-0123456789',
      exposed: false,
    });
    chmodSync(file, 0o640);
    expect((await readGatewayClientToken(file, key)).exposed).toBe(process.platform !== 'win32');
    writeFileSync(file, 'short\n');
    const bad = await readGatewayClientToken(file, key).catch((error: unknown) => error);
    expect((bad as McpHostError).message).toContain(
      `${key}: the token file ${file} does not hold a token`,
    );
    expect((bad as McpHostError).message).not.toContain('short');
  });
});
