import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test/helpers/scratch.js';
import { staticImportGraph } from '../test/helpers/import-graph.js';

const srcDir = dirname(fileURLToPath(import.meta.url));
const importGraph = (entry: string) => staticImportGraph(resolve(srcDir, entry));

describe('entry points', () => {
  it('the root entry imports no Node-only module and no dependency', () => {
    const { external, files } = importGraph('index.ts');
    expect([...external]).toEqual([]);
    expect([...files].some((file) => file.includes('/transport/stdio/'))).toBe(false);
  });

  it('the testing entry is platform-neutral too', () => {
    expect([...importGraph('testing/index.ts').external]).toEqual([]);
  });

  it('the node entry uses only Node built-ins', () => {
    const { external } = importGraph('node.ts');
    expect([...external].every((specifier) => specifier.startsWith('node:'))).toBe(true);
  });

  it('the stdio entry uses only Node built-ins', () => {
    const { external } = importGraph('stdio.ts');
    expect([...external].every((specifier) => specifier.startsWith('node:'))).toBe(true);
    expect(external).toContain('node:child_process');
  });

  it('the http entry uses Node built-ins, undici and eventsource-parser only', () => {
    const { external } = importGraph('http.ts');
    const allowed = new Set(['undici', 'eventsource-parser']);
    expect([...external].every((s) => s.startsWith('node:') || allowed.has(s))).toBe(true);
    expect(external).toContain('undici');
  });

  it('the defaults objects are frozen and share one message size limit', async () => {
    const { DEFAULT_MAX_MESSAGE_BYTES } = await import('./jsonrpc/peer-options.js');
    const defaults = [
      (await import('./stdio.js')).DEFAULT_STDIO_OPTIONS,
      (await import('./http.js')).DEFAULT_HTTP_OPTIONS,
      (await import('./ws.js')).DEFAULT_WEBSOCKET_OPTIONS,
    ];
    for (const value of defaults) {
      expect(Object.isFrozen(value)).toBe(true);
      expect(value.maxMessageBytes).toBe(DEFAULT_MAX_MESSAGE_BYTES);
    }
    const { DEFAULT_CLIENT_OPTIONS, DEFAULT_HOST_OPTIONS } = await import('./index.js');
    for (const value of [DEFAULT_CLIENT_OPTIONS, DEFAULT_HOST_OPTIONS, DEFAULT_HOST_OPTIONS.server])
      expect(Object.isFrozen(value)).toBe(true);
  });

  it('the config entry uses Node built-ins and the two parsers only: no transport', () => {
    const { external, files } = importGraph('config.ts');
    // yaml and jsonc-parser read files. Config describes transports; the host builds them.
    const allowed = new Set(['yaml', 'jsonc-parser']);
    expect([...external].filter((s) => !s.startsWith('node:') && !allowed.has(s))).toEqual([]);
    expect(external).toContain('yaml');
    expect(external).toContain('jsonc-parser');
    expect(
      [...files].filter((file) => /[/]transport[/](stdio|http|websocket)[/]/.test(file)),
    ).toEqual([]);
  });

  it('importing mcp-host/config loads neither undici nor ws; importing mcp-host loads no package', () => {
    const config = packagesLoadedBy('config.ts');
    expect(config).not.toContain('undici');
    expect(config).not.toContain('ws');
    expect(config).not.toContain('eventsource-parser');
    expect(packagesLoadedBy('index.ts')).toEqual([]);
  });

  it('mcp-host/openai and mcp-host/anthropic load no package (only types of theirs), nor does mcp-host', () => {
    for (const [entry, library] of [
      ['openai.ts', 'openai'],
      ['anthropic.ts', '@anthropic-ai/sdk'],
    ] as const) {
      // Named (in type imports), never loaded.
      const named = [...importGraph(entry).external];
      expect(named.length).toBeGreaterThan(0);
      expect(named.every((specifier) => specifier.startsWith(`${library}/`))).toBe(true);
      expect(packagesLoadedBy(entry)).toEqual([]);
    }
    expect(packagesLoadedBy('index.ts')).toEqual([]);
  });

  it('mcp-host/ai-sdk and mcp-host/mastra import their own library only; mcp-host/agents loads neither', () => {
    expect([...importGraph('ai-sdk.ts').external]).toEqual(['ai']);
    expect([...importGraph('mastra.ts').external]).toEqual(['@mastra/core/tools']);
    const loaded = packagesLoadedBy('agents.ts');
    expect(loaded.filter((name) => name === 'ai' || name.startsWith('@mastra/'))).toEqual([]);
  });

  it('each agent library is loaded by its own entry only: mcp-host/langchain, mcp-host/openai-agents', () => {
    const external = [...importGraph('langchain.ts').external];
    expect(external.length).toBeGreaterThan(0);
    expect(external.filter((s) => !s.startsWith('@langchain/core/'))).toEqual([]);
    expect([...importGraph('openai-agents.ts').external]).toEqual(['@openai/agents']);
    const langchain = packagesLoadedBy('langchain.ts');
    expect(langchain).toContain('@langchain/core');
    expect(langchain.some((name) => name.startsWith('@openai/'))).toBe(false);
    expect(packagesLoadedBy('openai-agents.ts')).toContain('@openai/agents');
  });

  it('mcp-host/config loads each parser when a document of its format first needs it', () => {
    expect(packagesLoadedBy('config.ts')).toEqual([]);
    const parse = (file: string) =>
      `m.parseConfigText('{"servers": {}}', ${JSON.stringify(file)}, m.formatOfFile(${JSON.stringify(file)}));`;
    expect(packagesLoadedBy('config.ts', parse('mcp.yaml'))).toEqual(['yaml']);
    // A well-formed JSON document needs no parser package (plain-json.ts); one with an error to
    // report loads jsonc-parser.
    expect(packagesLoadedBy('config.ts', parse('mcp.json'))).toEqual([]);
    const broken = `m.parseConfigText('{"servers": {},}', 'mcp.json', 'json');`;
    expect(packagesLoadedBy('config.ts', broken)).toEqual(['jsonc-parser']);
  });
});

/**
 * The npm packages a fresh Node process loads when it imports `entry` (a file of src/, run through
 * tsx, which is left out) and then runs `then` (code with the entry's module as `m`), read from a
 * module-resolution hook and a `require` hook (test/fixtures/load-recorder).
 */
function packagesLoadedBy(entry: string, then = ''): string[] {
  using scratch = tempDir();
  const record = join(scratch.path, 'loads.txt');
  execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      fileURLToPath(new URL('../test/fixtures/load-recorder/register.mjs', import.meta.url)),
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(pathToFileURL(resolve(srcDir, entry)).href)}); ${then}`,
    ],
    { env: { ...process.env, LOAD_RECORD_FILE: record }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const packages = readFileSync(record, 'utf8')
    .split('\n')
    .map((url) => /[/]node_modules[/]((?:@[^/]+[/])?[^/]+)[/]/.exec(url)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'tsx');
  return [...new Set(packages)].sort();
}
