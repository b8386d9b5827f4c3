import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { readNativeText } from './native.js';
import { nativeSchema, type SchemaNode } from './native-schema.js';
import { parseConfigText, formatOfFile } from '../parse.js';

const root = new URL('../../../', import.meta.url);
const published = JSON.parse(
  readFileSync(new URL('schema/mcp-config.schema.json', root), 'utf8'),
) as SchemaNode;
const fixtures = fileURLToPath(new URL('test/fixtures/config/native/', root));
const validate = new Ajv({
  allErrors: true,
  strict: true,
  strictRequired: false,
  allowUnionTypes: true,
}).compile(published);
const valueOf = (file: string): unknown =>
  parseConfigText(readFileSync(file, 'utf8'), file, formatOfFile(file)).value;

/** Fixtures whose mistake is a value the schema itself can rule out. */
const schemaCatches = [
  'wrong-type.yaml',
  'missing-command.yaml',
  'command-and-url.yaml',
  'negative-timeout.yaml',
  'unknown-key.yaml',
  'misspelt-command.yaml',
  'invalid-glob.yaml',
  'invalid-enabled.yaml',
  'bad-type.yaml',
  'bad-defaults.yaml',
  'not-a-mapping.yaml',
  'env-name.yaml',
  'zero-in-flight.yaml',
  'nested-transport.yaml',
  'retry-true.yaml',
  'foreign-disabled.yaml',
  'gateway-port.yaml',
];

describe('the published JSON Schema', () => {
  it('is src/config/native/native-schema.ts, printed (run `npm run schema:config` after a change)', () => {
    expect(published).toEqual(JSON.parse(JSON.stringify(nativeSchema)));
  });

  it.each(readdirSync(`${fixtures}valid`))(
    'accepts valid/%s, which the reader reads cleanly',
    (name) => {
      const file = `${fixtures}valid/${name}`;
      expect(readNativeText(readFileSync(file, 'utf8'), file).diagnostics).toEqual([]);
      expect(validate(valueOf(file)), JSON.stringify(validate.errors)).toBe(true);
    },
  );

  it.each(schemaCatches)('rejects invalid/%s, as the reader does', (name) => {
    const file = `${fixtures}invalid/${name}`;
    expect(validate(valueOf(file))).toBe(false);
    expect(readNativeText(readFileSync(file, 'utf8'), file).diagnostics.length).toBeGreaterThan(0);
  });

  it('names the same keys the reader knows, at every level', () => {
    const keysOf = (node: SchemaNode | undefined): string[] => Object.keys(node?.properties ?? {});
    const server = published.properties!.servers!.additionalProperties as SchemaNode;
    // The reader walks nativeSchema; the published file must offer editors exactly those keys.
    expect(keysOf(published)).toEqual(keysOf(nativeSchema));
    expect(keysOf(server)).toEqual(
      keysOf(nativeSchema.properties!.servers!.additionalProperties as SchemaNode),
    );
    // And every server key is one the reader turns into the model: none comes back as unknown.
    const everyKey: Record<string, unknown> = {
      command: 'x',
      args: ['a'],
      env: { A: 'b' },
      cwd: '/',
      envFile: '.env',
      enabled: true,
      lazy: true,
      trusted: true,
      timeouts: { connectMs: 1, requestMs: 1, discoverMs: 1 },
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
      toolsTtlMs: 1,
      tools: { allow: ['a'], block: ['b'] },
      restart: { enabled: true, baseDelayMs: 1, maxDelayMs: 1, crashLimit: 1, crashWindowMs: 1 },
      maxInFlight: 1,
      maxQueue: 1,
      secret: ['A'],
    };
    const remote = {
      type: 'http',
      url: 'https://x',
      headers: { H: 'v' },
      oauth: {
        clientId: 'c',
        clientSecret: 's',
        scopes: ['a'],
        redirectUri: 'http://127.0.0.1/cb',
        authorizationServer: 'https://a',
      },
    };
    const nested = { transport: { type: 'stdio', command: 'x' } };
    const used = new Set([
      ...Object.keys(everyKey),
      ...Object.keys(remote),
      ...Object.keys(nested),
    ]);
    expect([...used].sort()).toEqual(keysOf(server).sort());
    expect(keysOf(server.properties!.transport).sort()).toEqual(
      ['type', 'command', 'args', 'env', 'cwd', 'envFile', 'url', 'headers'].sort(),
    );
    const text = JSON.stringify({ servers: { a: everyKey, b: remote, c: nested } });
    const { config, diagnostics } = readNativeText(text, 'every-key.json');
    expect(diagnostics).toEqual([]);
    expect(config.servers.map((s) => s.extra)).toEqual([undefined, undefined, undefined]);
    expect(validate(JSON.parse(text))).toBe(true);
  });
});
