/**
 * Values passed directly in a stdio transport's `env` are secrets (RELIABILITY.md, invariant 7),
 * as they are when they come from a config file: a server that prints one on stderr and dies has
 * it masked in the error (message, `toJSON`, `util.inspect`), its stderr tail, the stderr lines
 * and the log, through `StdioTransport`, `McpClient` and `McpHost` alike. A variable named in
 * `publicEnv` is not secret, and its value shows (which proves the checks can fail).
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { McpClient, McpHost, ProcessExitedError, redact } from '../../src/index.js';
import type { McpHostError } from '../../src/index.js';
import { StdioTransport } from '../../src/stdio.js';
import { capturingLogger } from '../helpers/fixture-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { rejectionOf } from '../helpers/timing.js';

const envLeak = fileURLToPath(new URL('../fixtures/servers/env-leak.mjs', import.meta.url));
const canary = (kind: string): string => `canary-${kind}-${randomBytes(8).toString('hex')}`;

/** A fresh secret and public value, the env that carries them and the transport settings. */
function leakyServer() {
  const secret = canary('secret');
  const open = canary('public');
  return {
    secret,
    open,
    command: process.execPath,
    args: [envLeak, 'UPSTREAM_VALUE', 'CLIENT_LABEL'],
    env: { UPSTREAM_VALUE: secret, CLIENT_LABEL: open },
    publicEnv: ['client_label'],
  };
}

/** Every way the error can be shown, one per line. */
function shown(error: unknown): string {
  const e = error as McpHostError;
  const lines = [e.message, JSON.stringify(e), inspect(e, { depth: 10 })];
  if (error instanceof ProcessExitedError) lines.push(error.stderrTail);
  return lines.join('\n');
}

describe('secrets passed in a stdio transport env', () => {
  it('StdioTransport: masked in the exit error, stderr tail, stderr lines and log', async () => {
    await using _guard = leakGuard();
    const { secret, open, ...options } = leakyServer();
    const logger = capturingLogger();
    await using transport = new StdioTransport({ ...options, serverName: 'leaky', logger });
    const lines: string[] = [];
    transport.onStderrLine((line) => lines.push(line));
    const closed = new Promise<McpHostError | undefined>((resolve) => transport.onClose(resolve));
    await transport.start();
    // While the transport runs the value is registered with the process-wide redactor.
    expect(redact(`got ${secret}`)).toBe('got <masked>');
    transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const reason = await closed;

    expect(reason).toBeInstanceOf(ProcessExitedError);
    const exited = reason as ProcessExitedError;
    expect(exited.stderrTail).toContain('UPSTREAM_VALUE is <masked>');
    expect(exited.stderrTail).toContain(`CLIENT_LABEL is ${open}`);
    const text = [shown(exited), lines.join('\n'), logger.text()].join('\n');
    expect(text).toContain(open);
    expect(text).not.toContain(secret);

    await transport.close();
    // Released at close, but the transport's own stderr tail stays masked.
    expect(redact(secret)).toBe(secret);
    expect(transport.stderrTail()).toContain('UPSTREAM_VALUE is <masked>');
    expect(transport.stderrTail()).not.toContain(secret);
  });

  it('McpClient: connect fails with the value masked in the error and the log', async () => {
    await using _guard = leakGuard();
    const { secret, open, ...options } = leakyServer();
    const logger = capturingLogger();
    await using client = new McpClient({
      serverName: 'leaky',
      transport: { type: 'stdio', ...options },
      logger,
    });
    const { error } = await rejectionOf(client.connect());
    expect(error).toBeInstanceOf(ProcessExitedError);
    expect((error as ProcessExitedError).stderrTail).toContain('UPSTREAM_VALUE is <masked>');
    const text = [shown(error), logger.text()].join('\n');
    expect(text).toContain(`CLIENT_LABEL is ${open}`);
    expect(text).not.toContain(secret);
  });

  it('McpHost: the failed server status, a call error, inspect and the log mask the value', async () => {
    await using _guard = leakGuard();
    const { secret, open, ...options } = leakyServer();
    const logger = capturingLogger();
    await using host = new McpHost({
      servers: [{ name: 'leaky', transport: { type: 'stdio', ...options } }],
      restart: { enabled: false },
      pins: false,
      logger,
    });
    const { servers } = await host.start();
    expect(servers.map((s) => [s.name, s.state, s.lastError?.code])).toEqual([
      ['leaky', 'failed', 'PROCESS_EXITED'],
    ]);
    const call = await rejectionOf(host.callTool('mcp__leaky__anything', {}));
    await host.close();
    const text = [
      JSON.stringify(servers),
      inspect(host, { depth: 4 }),
      shown(call.error),
      logger.text(),
    ].join('\n');
    expect(text).toContain(`CLIENT_LABEL is ${open}`);
    expect(text).not.toContain(secret);
  });
});
