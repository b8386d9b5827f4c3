/**
 * One exit-code rule for the commands that check several servers: `doctor` and `servers status`
 * end with the worst (highest) code of their servers, whatever the order of the servers in the
 * file, in table and JSON mode. The config: a server needing an input nobody gives (3) before an
 * http URL on a closed port (4), and a command that is not on PATH (4 for both: SPAWN_FAILED).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { closedPort, ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

beforeAll(() => ensureBuiltCli());

describe('doctor and servers status agree on the exit code', () => {
  it('input required (3) before unreachable (4): both exit 4, table and JSON', async () => {
    using dir = tempDir();
    const blocks = {
      asks: ['  asks:', '    command: node', '    env:', '      TOKEN: ${input:token}'],
      closed: ['  closed:', `    url: http://127.0.0.1:${await closedPort()}/mcp`],
    };
    const write = (name: string, servers: string[][]): string => {
      const file = join(dir.path, name);
      writeFileSync(file, ['servers:', ...servers.flat(), ''].join('\n'), { mode: 0o600 });
      return file;
    };
    const both = write('mcp.yaml', [blocks.asks, blocks.closed]);
    for (const mode of [[], ['--json']]) {
      const args = ['--config', both, '--timeout', '5s', ...mode];
      const doctor = await runCli(['doctor', ...args], { cwd: dir.path });
      const status = await runCli(['servers', 'status', ...args], { cwd: dir.path });
      expect(doctor.stdout).toMatch(/input-required/);
      expect(status.stdout).toMatch(/CONFIG_INPUT_REQUIRED/);
      expect({ doctor: doctor.code, status: status.code }).toEqual({ doctor: 4, status: 4 });
    }
    // Either alone keeps its own code, the same for both commands.
    for (const [name, code] of [
      ['asks', 3],
      ['closed', 4],
    ] as const) {
      const args = ['--config', write(`${name}.yaml`, [blocks[name]]), '--timeout', '5s'];
      expect((await runCli(['doctor', ...args], { cwd: dir.path })).code).toBe(code);
      expect((await runCli(['servers', 'status', ...args], { cwd: dir.path })).code).toBe(code);
    }
  });

  it('a command not on PATH: both exit 4 (it could not be started)', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(file, 'servers:\n  missing:\n    command: mcp-host-test-no-such-command\n');
    for (const mode of [[], ['--json']]) {
      const args = ['--config', file, ...mode];
      const doctor = await runCli(['doctor', ...args], { cwd: dir.path });
      const status = await runCli(['servers', 'status', ...args], { cwd: dir.path });
      expect(doctor.stdout).toMatch(/command-not-found/);
      expect(status.stdout).toMatch(/SPAWN_FAILED/);
      expect({ doctor: doctor.code, status: status.code }).toEqual({ doctor: 4, status: 4 });
    }
  });
});
