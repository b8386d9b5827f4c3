import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/scratch.js';
import { CliError } from '../exit-codes.js';
import { gatewayClientStatePath } from '../gateway-token.js';
import type { GlobalOptions } from '../global-options.js';
import { CliRuntime } from '../runtime.js';
import { loginStore } from './auth.js';

const options = (config: string[]): GlobalOptions => ({
  config,
  format: 'table',
  timeoutMs: 1_000,
  concurrency: 1,
  verbose: false,
  quiet: true,
  color: false,
});

describe('auth login --as <client>', () => {
  it("keeps the login in that client's token store, the one gateway serve reads; refuses an unknown client", async () => {
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(
      file,
      'servers:\n  crm:\n    url: https://crm.example/mcp\n    oauth: {}\n' +
        'gateway:\n  clients:\n    alice:\n      tokenFile: alice.token\n  perClient: [crm]\n',
    );
    const env = { MCP_HOST_STATE_DIR: join(dir.path, 'state') };
    const cli = new CliRuntime(options([file]), env, dir.path);
    try {
      expect(await loginStore(cli, undefined)).toEqual({});
      const where = await loginStore(cli, 'alice');
      const path = join(dir.path, 'state', 'clients', 'alice', 'state.json');
      expect(where).toEqual({ tokenStatePath: path });
      expect(gatewayClientStatePath('alice', env)).toBe(path);
      // The host `auth login` opens saves into that store, not the shared state file.
      const opened = await cli.openHost({ servers: ['crm'], start: false, ...where });
      await opened.tokenStore!.saveTokens(
        { issuer: 'https://crm.example', clientId: 'c', resource: 'https://crm.example/mcp' },
        { accessToken: 'a', tokenType: 'Bearer' },
      );
      await opened.tokenStore!.close();
      expect(existsSync(path)).toBe(true);
      expect(existsSync(join(dir.path, 'state', 'state.json'))).toBe(false);
      const unknown = await loginStore(cli, 'mallory').catch((error: unknown) => error);
      expect(unknown).toBeInstanceOf(CliError);
      expect((unknown as CliError).message).toContain("has no client 'mallory' (it has alice)");
    } finally {
      await cli.close();
    }
  });
});
