import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/scratch.js';
import { MAX_ERROR_MESSAGE_CHARS } from '../errors/mcp-host-error.js';
import type { ServerStatus } from '../host/slot/server-status.js';
import { CliError, ExitCode } from './exit-codes.js';
import type { GlobalOptions } from './global-options.js';
import { CliRuntime, serverDownError } from './runtime.js';

const options = (config: string[]): GlobalOptions => ({
  config,
  format: 'table',
  timeoutMs: 1_000,
  concurrency: 1,
  verbose: false,
  quiet: true,
  color: false,
});

function status(state: ServerStatus['state'], lastError?: ServerStatus['lastError']): ServerStatus {
  return {
    name: 'x',
    state,
    since: new Date(0).toISOString(),
    ...(lastError === undefined ? {} : { lastError }),
    toolCount: 0,
    quarantinedCount: 0,
    restartCount: 0,
    inFlight: 0,
    queued: 0,
  };
}

describe('CliRuntime', () => {
  it('an unusable config is CONFIG_INVALID listing the errors that fit, then how many more', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'broken.yaml');
    const entries = Array.from({ length: 30 }, (_, i) => `  s${i}: [unclosed ${i}`);
    writeFileSync(file, ['servers: {', ...entries].join('\n'));
    const cli = new CliRuntime(options([file]), {}, dir.path);
    const error = await cli.loadConfig().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    await cli.close();
    expect(error).toBeInstanceOf(CliError);
    const { code, exitCode, message } = error as CliError;
    expect([code, exitCode]).toEqual(['CONFIG_INVALID', ExitCode.usage]);
    expect(message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    const lines = message.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${file.replaceAll('.', '\\.')}:2:\\d+: error: `));
    expect(lines.at(-1)).toMatch(/^… and \d+ more \(mcp-host config validate lists them all\)$/);
  });
});

describe('serverDownError', () => {
  it("a server that is down: its last error's code, its state, the server named once", () => {
    const down = serverDownError(
      status('failed', { code: 'SPAWN_FAILED', message: 'command not found' }),
    );
    expect(down).toMatchObject({
      code: 'SPAWN_FAILED',
      serverName: 'x',
      exitCode: ExitCode.unreachable,
      message: "server 'x': failed (SPAWN_FAILED: command not found)",
    });
    expect(
      serverDownError(status('needs_auth', { code: 'HTTP_STATUS', message: 'HTTP 401' })),
    ).toMatchObject({ code: 'HTTP_STATUS', exitCode: ExitCode.authRequired });
    expect(serverDownError(status('connecting'))).toMatchObject({
      code: 'SERVER_UNAVAILABLE',
      message: "server 'x': still connecting",
      exitCode: ExitCode.unreachable,
    });
    expect(serverDownError(status('ready'))).toBeUndefined();
    expect(serverDownError(status('degraded'))).toBeUndefined();
  });
});
