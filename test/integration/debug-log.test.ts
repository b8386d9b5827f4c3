/**
 * `NODE_DEBUG=mcp-host`: the Node-only parts' default logger (src/internal/debug-logger.ts) writes
 * through `util.debuglog`, which it fetches on first use rather than importing; the built stdio
 * transport, in a process of its own, logs a junk line on a server's stdout to stderr.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ensureBuiltCli, repoRoot } from '../helpers/run-built-cli.js';

const stdioEntry = pathToFileURL(join(repoRoot, 'dist', 'stdio.js')).href;
const junkServer = join(repoRoot, 'test', 'fixtures', 'servers', 'junk-stdout.mjs');

/** The program: one request to the junk server over the built StdioTransport, then close. */
const program = `
  import { StdioTransport } from ${JSON.stringify(stdioEntry)};
  const transport = new StdioTransport({ command: process.execPath, args: [${JSON.stringify(junkServer)}] });
  const answered = new Promise((resolve) => transport.onMessage(resolve));
  await transport.start();
  transport.send({ jsonrpc: '2.0', id: 1, method: 'ping', params: {} });
  await answered;
  await transport.close();
`;

function run(env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', program],
      { env, timeout: 30_000 },
      (error, _stdout, stderr) =>
        error === null ? resolve(stderr) : reject(new Error(`${error.message}\n${stderr}`)),
    );
  });
}

beforeAll(() => ensureBuiltCli());

describe('NODE_DEBUG=mcp-host', () => {
  it('writes the debug logger lines to stderr, and nothing without it', async () => {
    const logged = await run(cliEnv({ NODE_DEBUG: 'mcp-host' }));
    expect(logged).toMatch(/MCP-HOST \d+: warn skipped a line on stdout that is not JSON/);
    expect(await run(cliEnv({ NODE_DEBUG: undefined }))).not.toContain('MCP-HOST');
  });
});
