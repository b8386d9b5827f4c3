/**
 * Roots from config end to end: `roots:` in mcp.yaml, through `loadConfig` and `resolveConfig`, to
 * a host built from `resolved.host`, to real servers that ask for them: the official filesystem
 * server started with no folders (it then works in the client's roots, and refuses everything
 * without them), and the legacy (`roots/list`) and modern (`input_required`) SDK fixtures.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig, resolveConfig } from '../../src/config.js';
import { McpHost, type CallToolResult, type Logger } from '../../src/index.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';
import { cliEnv, ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempFiles } from '../helpers/scratch.js';

const require = createRequire(import.meta.url);
const filesystem = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

/** A logger whose `line(pattern)` resolves with the first message matching it (logged or to come). */
function watchingLogger(): Logger & { line(pattern: RegExp): Promise<string> } {
  const messages: string[] = [];
  const waiters = new Set<(message: string) => void>();
  const log = (message: string): void => {
    messages.push(message);
    for (const waiter of [...waiters]) waiter(message);
  };
  return {
    debug: log,
    info: log,
    warn: log,
    error: log,
    line: (pattern) =>
      new Promise((resolve) => {
        const seen = messages.find((message) => pattern.test(message));
        if (seen !== undefined) return resolve(seen);
        const waiter = (message: string): void => {
          if (!pattern.test(message)) return;
          waiters.delete(waiter);
          resolve(message);
        };
        waiters.add(waiter);
      }),
  };
}

/** A host built from `yaml` (written as `<dir>/mcp.yaml`) the way the CLI builds one. */
async function hostFromConfig(dir: string, yaml: string, logger?: Logger) {
  const file = join(dir, 'mcp.yaml');
  writeFileSync(file, yaml, { mode: 0o600 });
  const { config } = await loadConfig({ files: [file] });
  const resolved = await resolveConfig(config, { env: {} });
  const host = new McpHost({ ...resolved.host, ...(logger === undefined ? {} : { logger }) });
  return {
    host,
    resolved,
    async [Symbol.asyncDispose]() {
      await host.close();
      resolved.dispose();
    },
  };
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** A server entry of mcp.yaml that runs `script` with this Node. */
const stdio = (name: string, script: string) =>
  `  ${name}:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(script)}]\n`;
const fsServer = (entry: string) => `servers:\n${stdio('fs', entry)}`;

describe('roots from config', () => {
  it('the filesystem server started without folders works in the configured root', async () => {
    await using _guard = leakGuard();
    using dir = tempFiles({});
    const sandbox = join(dir.path, 'sandbox');
    mkdirSync(sandbox);
    writeFileSync(join(sandbox, 'hello.txt'), 'hello from the sandbox');
    writeFileSync(join(dir.path, 'outside.txt'), 'not yours');
    const logger = watchingLogger();
    await using made = await hostFromConfig(
      dir.path,
      `${fsServer(filesystem)}roots:\n  - ./sandbox\n`,
      logger,
    );
    expect(made.resolved.host.roots).toEqual([{ uri: pathToFileURL(sandbox).href }]);
    const { host } = made;
    const updated = logger.line(/Updated allowed directories from MCP roots/);
    expect((await host.start()).ready).toEqual(['fs']);
    // The server asks for the roots once it is initialised, and takes them in after answering.
    await updated;
    const allowed = await host.callTool('mcp__fs__list_allowed_directories');
    expect(textOf(allowed)).toContain(sandbox);
    const read = await host.callTool('mcp__fs__read_text_file', {
      path: join(sandbox, 'hello.txt'),
    });
    expect(read.isError).not.toBe(true);
    expect(textOf(read)).toBe('hello from the sandbox');
    const outside = await host.callTool('mcp__fs__read_text_file', {
      path: join(dir.path, 'outside.txt'),
    });
    expect(outside.isError).toBe(true);
  });

  it('without roots the same server refuses the read', async () => {
    await using _guard = leakGuard();
    using dir = tempFiles({ 'hello.txt': 'only for the roots' });
    await using made = await hostFromConfig(dir.path, fsServer(filesystem));
    expect(made.resolved.host.roots).toBeUndefined();
    const { host } = made;
    expect((await host.start()).ready).toEqual(['fs']);
    const read = await host.callTool('mcp__fs__read_text_file', {
      path: join(dir.path, 'hello.txt'),
    });
    expect(read.isError).toBe(true);
    expect(textOf(read)).toContain('Access denied');
    expect(textOf(read)).not.toContain('only for the roots');
    expect(textOf(await host.callTool('mcp__fs__list_allowed_directories'))).not.toContain(
      dir.path,
    );
  });

  it('a CLI command’s host gives them too: `mcp-host call legacy/list-roots`', async () => {
    ensureBuiltCli();
    using dir = tempFiles({});
    writeFileSync(
      join(dir.path, 'mcp.yaml'),
      `servers:\n${stdio('legacy', mcpFixtures.legacySdk)}roots: [./sandbox]\n`,
      { mode: 0o600 },
    );
    const run = await runCli(['call', 'legacy/list-roots', '--json'], {
      cwd: dir.path,
      env: cliEnv({ XDG_CONFIG_HOME: join(dir.path, 'xdg') }),
    });
    expect(run.code).toBe(0);
    const { result } = JSON.parse(run.stdout) as { result: CallToolResult };
    expect(JSON.parse(textOf(result))).toEqual([
      { uri: pathToFileURL(join(dir.path, 'sandbox')).href },
    ]);
  });

  it('the legacy and modern SDK fixtures’ list-roots returns the configured roots', async () => {
    await using _guard = leakGuard();
    using dir = tempFiles({});
    await using made = await hostFromConfig(
      dir.path,
      `servers:\n${stdio('legacy', mcpFixtures.legacySdk)}${stdio('modern', mcpFixtures.modernSdk)}roots:
  - { path: ./sandbox, name: sandbox }
  - file:///srv/shared
`,
    );
    const { host } = made;
    expect((await host.start()).ready).toEqual(['legacy', 'modern']);
    const expected = [
      { uri: pathToFileURL(join(dir.path, 'sandbox')).href, name: 'sandbox' },
      { uri: 'file:///srv/shared' },
    ];
    for (const server of ['legacy', 'modern']) {
      const result = await host.callTool(`mcp__${server}__list-roots`);
      expect(result.isError).not.toBe(true);
      expect(JSON.parse(textOf(result))).toEqual(expected);
    }
  });
});
