/**
 * `mcp-host read <uri>` for a URI made from a resource template (the official everything
 * server's `demo://resource/dynamic/text/{resourceId}`): no server lists it, but the template
 * matches, so it is read with or without `--server`; a URI nothing matches gets the error that
 * says to name a server (table and JSON).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { officialServers } from '../helpers/mcp-servers.js';
import { tempDir } from '../helpers/scratch.js';

const everything = officialServers.everything.script;
const URI = 'demo://resource/dynamic/text/7';
const UNMATCHED = 'demo://nothing/here/7';

beforeAll(() => ensureBuiltCli());

describe('read a templated resource URI', () => {
  it('reads it from the server whose template matches; a URI nothing matches: the hint to pass --server', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(
      file,
      `servers:\n  everything:\n    command: node\n    args: ['${everything}', stdio]\n`,
    );
    const args = ['--config', file, 'read', URI];
    const routed = await runCli(args, { cwd: dir.path });
    expect(routed.code).toBe(0);
    expect(routed.stdout).toContain('Resource 7');

    const unmatched = ['--config', file, 'read', UNMATCHED];
    const table = await runCli(unmatched, { cwd: dir.path });
    expect(table.code).toBe(1);
    expect(table.stderr).toContain(`no connected server lists the resource '${UNMATCHED}'`);
    expect(table.stderr).toContain('pass --server <name>');
    expect(table.stderr).toContain('(connected: everything)');

    const json = await runCli([...unmatched, '--json'], { cwd: dir.path });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr.trim())).toEqual({
      error: {
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('pass --server <name>') as unknown,
        server: null,
      },
    });

    const named = await runCli([...args, '--server', 'everything'], { cwd: dir.path });
    expect(named.code).toBe(0);
    expect(named.stdout).toContain('Resource 7');
  });
});
