import { describe, expect, it } from 'vitest';
import { McpHostError } from '../errors/mcp-host-error.js';
import { redact } from '../errors/redact.js';
import { formatDiagnostic } from './diagnostics.js';
import { maskConfig } from './expand/secrets.js';
import { mergeConfigs } from './load.js';
import { readNativeText } from './native/native.js';
import { writeNativeConfig } from './native/native-write.js';
import { resolveStateSettings, type StateSettings } from './state-settings.js';

const SERVERS = 'servers:\n  files:\n    command: mcp-files\n';
const PASSWORD = 'pw-Sesame-42-xyzzy';

function stateOf(yaml: string, file = '/srv/mcp/mcp.yaml') {
  return readNativeText(`${SERVERS}${yaml}`, file);
}

/** The settings, ending their secrets' registration when disposed (`using`). */
function disposing(settings: StateSettings): StateSettings & Disposable {
  return Object.assign(
    { ...settings },
    {
      [Symbol.dispose]: () => {
        if (settings.store === 'postgres') settings.secrets.dispose();
      },
    },
  );
}

/** The error `fn` throws (it must throw an McpHostError). */
function thrown(fn: () => unknown): McpHostError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(McpHostError);
    return error as McpHostError;
  }
  throw new Error('expected a throw');
}

describe('the state: section', () => {
  it('names no store by default: tokens in the default state file, pins in memory', () => {
    const { config, diagnostics } = stateOf('');
    expect(diagnostics).toEqual([]);
    expect(resolveStateSettings(config)).toEqual({ store: 'default' });
    expect(resolveStateSettings(stateOf('state: {}\n').config)).toEqual({ store: 'default' });
  });

  it("reads a state file relative to the config file's folder, ~ as the home directory", () => {
    expect(resolveStateSettings(stateOf('state:\n  file: run/state.json\n').config)).toEqual({
      store: 'file',
      path: '/srv/mcp/run/state.json',
    });
    expect(
      resolveStateSettings(stateOf('state:\n  file: ~/fleet.json\n').config, {
        homeDir: '/home/ops',
      }),
    ).toEqual({ store: 'file', path: '/home/ops/fleet.json' });
  });

  it('expands the PostgreSQL URL from the environment and registers its password with the redactor', () => {
    const { config, diagnostics } = stateOf(
      'state:\n  postgres:\n    url: ${MCP_HOST_POSTGRES_URL}\n    schema: fleet_a\n',
    );
    expect(diagnostics).toEqual([]);
    const url = `postgres://mcp:${PASSWORD}@db.internal:5432/mcp`;
    using settings = disposing(
      resolveStateSettings(config, { env: { MCP_HOST_POSTGRES_URL: url } }),
    );
    expect(settings).toMatchObject({
      store: 'postgres',
      connectionString: url,
      schema: 'fleet_a',
      where: '/srv/mcp/mcp.yaml:4:1: state.postgres.url',
    });
    expect(redact(`connect failed: ${PASSWORD}`)).not.toContain(PASSWORD);
    expect(redact(`to ${url}`)).not.toContain(PASSWORD);
    settings[Symbol.dispose]();
    expect(redact(`connect failed: ${PASSWORD}`)).toContain(PASSWORD);
  });

  it('takes a reference with text around it and a default; the schema is left to the store', () => {
    const { config } = stateOf(
      'state:\n  postgres:\n    url: postgresql://mcp:${DB_PASSWORD}@${DB_HOST:-localhost}/mcp\n',
    );
    using settings = disposing(resolveStateSettings(config, { env: { DB_PASSWORD: PASSWORD } }));
    expect(settings).toMatchObject({
      connectionString: `postgresql://mcp:${PASSWORD}@localhost/mcp`,
      schema: undefined,
    });
  });

  it('fails with CONFIG_VARIABLE_UNSET naming the variable, file and key, never a value', () => {
    const { config } = stateOf(
      `state:\n  postgres:\n    url: postgres://mcp:${PASSWORD}@\${DB_HOST}/mcp\n`,
    );
    const error = thrown(() => resolveStateSettings(config, { env: {} }));
    expect(error.code).toBe('CONFIG_VARIABLE_UNSET');
    expect(error.message).toContain('/srv/mcp/mcp.yaml:4:1: state.postgres.url');
    expect(error.message).toContain('DB_HOST');
    expect(JSON.stringify(error)).not.toContain(PASSWORD);
  });

  it('refuses a URL that is not postgres:// and an input reference, naming file and key only', () => {
    const notPostgres = stateOf('state:\n  postgres:\n    url: ${URL}\n').config;
    const error = thrown(() =>
      resolveStateSettings(notPostgres, { env: { URL: `mysql://root:${PASSWORD}@db/x` } }),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(/state\.postgres\.url: expected a postgres:\/\/ or postgresql:/);
    expect(JSON.stringify(error)).not.toContain(PASSWORD);
    expect(redact(PASSWORD)).toBe(PASSWORD); // refused: nothing stays registered

    const input = stateOf('state:\n  postgres:\n    url: ${input:db}\n').config;
    expect(thrown(() => resolveStateSettings(input)).message).toMatch(
      /state\.postgres\.url: \$\{input:db\} cannot be used here/,
    );
  });

  it('reports mistakes with file, line and key: both stores, a bad template, a bad schema, an unknown key', () => {
    const both = stateOf('state:\n  file: s.json\n  postgres:\n    url: ${DB}\n');
    expect(both.config.state).toBeUndefined();
    expect(both.diagnostics.map(formatDiagnostic)).toEqual([
      '/srv/mcp/mcp.yaml:7:5: error: state.postgres: name one store: `file` or `postgres`, not both',
    ]);
    const template = stateOf('state:\n  postgres:\n    url: postgres://${DB\n');
    expect(template.diagnostics.map(formatDiagnostic)).toEqual([
      expect.stringMatching(
        /^\/srv\/mcp\/mcp\.yaml:6:10: error: state\.postgres\.url: unterminated/,
      ),
    ]);
    const schema = stateOf('state:\n  postgres:\n    url: ${DB}\n    schema: Fleet-A\n');
    expect(schema.diagnostics.map((d) => [d.severity, formatDiagnostic(d)])).toEqual([
      ['error', expect.stringContaining('state.postgres.schema')],
    ]);
    const unknown = stateOf('state:\n  postgress:\n    url: ${DB}\n');
    expect(unknown.diagnostics).toMatchObject([
      { severity: 'warning', kind: 'unknown-key', suggestion: 'postgres' },
    ]);
  });

  it('masks a written connection string when shown, keeps references, and writes the section back', () => {
    const literal = stateOf(
      `state:\n  postgres:\n    url: postgres://mcp:${PASSWORD}@db/mcp\n    schema: fleet\n`,
    ).config;
    const shown = JSON.stringify(maskConfig(literal));
    expect(shown).not.toContain(PASSWORD);
    expect(writeNativeConfig(maskConfig(literal)).text).not.toContain(PASSWORD);
    const reference = stateOf('state:\n  postgres:\n    url: ${MCP_HOST_POSTGRES_URL}\n').config;
    expect(maskConfig(reference).state?.postgres?.url).toBe('${MCP_HOST_POSTGRES_URL}');
    const written = writeNativeConfig(literal).text;
    expect(written).toContain('state:\n  postgres:\n');
    const again = readNativeText(written, '/srv/mcp/mcp.yaml').config;
    expect(again.state?.postgres).toEqual({
      url: `postgres://mcp:${PASSWORD}@db/mcp`,
      schema: 'fleet',
    });
  });

  it("merges as a whole: the last file's state: wins", () => {
    const first = stateOf('state:\n  file: a.json\n', '/a/mcp.yaml');
    const second = stateOf('state:\n  postgres:\n    url: ${DB}\n', '/b/mcp.yaml');
    const merged = mergeConfigs([first, second]).config;
    expect(merged.state?.file).toBeUndefined();
    expect(merged.state?.postgres?.url).toBe('${DB}');
    expect(mergeConfigs([second, stateOf('', '/c/mcp.yaml')]).config.state?.source.file).toBe(
      '/b/mcp.yaml',
    );
  });
});
