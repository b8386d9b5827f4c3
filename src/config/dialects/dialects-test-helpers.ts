/**
 * What the dialect tests share: the fixture files of each foreign dialect, reading one, and the
 * views of a config the tests compare (without positions, without extras, diagnostic kinds).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConfigDiagnostic, McpConfig, ServerConfig } from '../model.js';
import { readForeignText } from './read-text.js';
import { type ForeignDialect } from './registry.js';

export const FIXTURES = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../test/fixtures/config',
);
export const HOME = '/home/tester';

export const FIXTURE_FILES: Record<ForeignDialect, string> = {
  'claude-desktop': 'claude_desktop_config.json',
  'claude-code': '.mcp.json',
  vscode: '.vscode/mcp.json',
  cursor: '.cursor/mcp.json',
  crewai: 'crew.yaml',
};

export function fixture(
  dialect: ForeignDialect,
  kind: 'basic' | 'full',
  name = FIXTURE_FILES[dialect],
): string {
  return join(FIXTURES, dialect, kind, name);
}

export function load(file: string, dialect?: ForeignDialect) {
  return readForeignText(readFileSync(file, 'utf8'), file, {
    homeDir: HOME,
    ...(dialect ? { dialect } : {}),
  });
}

/** The model without where it came from and without dialect-specific extras. */
export function strip(config: McpConfig): unknown {
  return {
    servers: config.servers.map(({ source: _source, extra: _extra, ...rest }) => rest),
    ...(config.inputs === undefined ? {} : { inputs: config.inputs }),
  };
}

/** A server's name, enable flag and transport without cwd / envFile (what every dialect has). */
export function core(server: Omit<ServerConfig, 'source'>): unknown {
  const {
    cwd: _cwd,
    envFile: _envFile,
    ...transport
  } = server.transport as { cwd?: string; envFile?: string };
  return { name: server.name, enabled: server.enabled, transport };
}

export function kinds(diagnostics: readonly ConfigDiagnostic[]): string[] {
  return diagnostics.map(
    (d) => `${d.severity}:${d.kind}${d.server === undefined ? '' : `:${d.server}`}`,
  );
}

export const BASIC: Omit<ServerConfig, 'source'>[] = [
  {
    name: 'files',
    transport: {
      type: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
      env: { LOG_LEVEL: 'info' },
    },
    enabled: true,
  },
  {
    name: 'memory',
    transport: {
      type: 'stdio',
      command: 'node',
      args: ['./memory-server.js', '--verbose'],
      env: {},
    },
    enabled: true,
  },
];

export const DIALECTS = Object.keys(FIXTURE_FILES) as ForeignDialect[];
