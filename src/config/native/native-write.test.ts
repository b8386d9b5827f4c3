import { describe, expect, it } from 'vitest';
import type { McpConfig } from '../model.js';
import { read, withoutPositions } from './native-test-helpers.js';
import { nativeDialect, readNativeText } from './native.js';
import { writeNativeConfig } from './native-write.js';

describe('native format: writing', () => {
  const roundTrip = (config: McpConfig, format: 'yaml' | 'json') => {
    const file = format === 'yaml' ? 'out.yaml' : 'out.json';
    const { text } = writeNativeConfig(config, { format });
    const back = readNativeText(text, file);
    return { text, back };
  };

  it.each(['valid/full.yaml', 'valid/minimal.json', 'valid/remote.json'])(
    '%s round-trips through YAML and JSON',
    (fixture) => {
      const { config } = read(fixture);
      for (const format of ['yaml', 'json'] as const) {
        const { back } = roundTrip(config, format);
        expect(back.diagnostics).toEqual([]);
        expect(withoutPositions({ ...back.config, files: [] })).toEqual(
          withoutPositions({ ...config, files: [] }),
        );
      }
    },
  );

  it('keeps unknown keys through a round trip (with the same warnings)', () => {
    const { config, diagnostics } = read('invalid/unknown-key.yaml');
    const { back } = roundTrip(config, 'yaml');
    expect(withoutPositions({ ...back.config, files: [] })).toEqual(
      withoutPositions({ ...config, files: [] }),
    );
    expect(back.diagnostics.map((d) => d.kind)).toEqual(diagnostics.map((d) => d.kind));
  });

  it('prints a stable, minimal YAML', () => {
    const { config } = read('valid/full.yaml');
    const { text } = writeNativeConfig(config);
    expect(text).toBe(writeNativeConfig(read('valid/full.yaml').config).text);
    expect(text.startsWith('servers:\n  github:\n    command: npx\n    args:\n')).toBe(true);
    expect(text).not.toMatch(/^ {4}enabled: true$/m); // the default is left out
    expect(text).toContain('  linear:\n    type: sse\n    url: https://mcp.linear.app/sse\n');
    expect(text).toContain(
      '  live:\n    url: wss://realtime.example.com/mcp\n    enabled: false\n',
    );
    expect(text.indexOf('servers:')).toBeLessThan(text.indexOf('inputs:'));
    expect(text.indexOf('inputs:')).toBeLessThan(text.indexOf('defaults:'));
  });

  it('writes type only when it cannot be inferred', () => {
    const config: McpConfig = {
      files: [],
      servers: [
        {
          name: 'sock',
          transport: { type: 'websocket', url: '${SOCKET_URL}', headers: {} },
          enabled: true,
          source: { file: 'x', dialect: 'vscode', path: [] },
        },
      ],
    };
    const { text, back } = roundTrip(config, 'yaml');
    expect(text).toBe('servers:\n  sock:\n    type: websocket\n    url: ${SOCKET_URL}\n');
    expect(back.config.servers[0]!.transport.type).toBe('websocket');
  });

  it('is a dialect module', () => {
    expect(nativeDialect.dialect).toBe('mcp-host');
    const { config } = nativeDialect.read(
      { value: { servers: { a: { command: 'x' } } } },
      'm.yaml',
    );
    expect(nativeDialect.write(config).text).toBe('servers:\n  a:\n    command: x\n');
  });
});
