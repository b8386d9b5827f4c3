import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../diagnostics.js';
import { withoutPositions } from './native-test-helpers.js';
import { readNativeText } from './native.js';
import { writeNativeConfig } from './native-write.js';

const SERVER = 'servers:\n  fs:\n    command: mcp-server-filesystem\n';

describe('native format: roots', () => {
  it('reads paths, file:// URIs and { path | uri, name } as written, each with its place', () => {
    const text = `${SERVER}roots:
  - ./sandbox
  - ~/projects
  - file:///srv/shared
  - { path: ../docs, name: docs }
  - { uri: 'file:///srv/data', name: data }
  - C:\\work
`;
    const { config, diagnostics } = readNativeText(text, '/etc/mcp/mcp.yaml');
    expect(diagnostics).toEqual([]);
    expect(withoutPositions({ ...config, servers: [], files: [] })).toEqual({
      servers: [],
      files: [],
      roots: [
        { path: './sandbox' },
        { path: '~/projects' },
        { uri: 'file:///srv/shared' },
        { path: '../docs', name: 'docs' },
        { uri: 'file:///srv/data', name: 'data' },
        { path: 'C:\\work' },
      ],
    });
    expect(config.roots![3]!.source).toEqual({
      file: '/etc/mcp/mcp.yaml',
      dialect: 'mcp-host',
      path: ['roots', 3],
      line: 8,
      column: 5,
    });
  });

  it('a root that is not a path or a file:// URI fails the file, naming the file and roots[i]', () => {
    const text = `${SERVER}roots:
  - ./fine
  - https://example.com/repo
  - { uri: 'file:///a', path: ./b }
  - { name: nothing }
`;
    const { config, diagnostics } = readNativeText(text, 'mcp.yaml');
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      'mcp.yaml:6:5: error: roots[1]: expected a path or a file:// URI',
      'mcp.yaml:7:5: error: roots[2]: a root gives exactly one of `uri` and `path`',
      'mcp.yaml:8:5: error: roots[3]: a root gives exactly one of `uri` and `path`',
    ]);
    expect(diagnostics.every((d) => d.server === undefined)).toBe(true);
    expect(config.roots).toEqual([expect.objectContaining({ path: './fine' })]);

    const wrongScheme = readNativeText(
      `${SERVER}roots:\n  - { uri: 'http://x.test/' }\n`,
      'm.yaml',
    );
    expect(wrongScheme.diagnostics.map(formatDiagnostic)).toEqual([
      'm.yaml:5:12: error: roots[0].uri: expected a file:// URI',
    ]);
    const notAList = readNativeText(`${SERVER}roots: ./sandbox\n`, 'm.yaml');
    expect(notAList.diagnostics.map((d) => [d.kind, d.location?.path])).toEqual([
      ['invalid-type', ['roots']],
    ]);
    expect(readNativeText(`${SERVER}roots:\n`, 'm.yaml').diagnostics).toEqual([
      expect.objectContaining({ severity: 'warning', kind: 'empty-value' }),
    ]);
  });

  it('writes them back as written, and they read back the same (YAML and JSON)', () => {
    const text = `${SERVER}roots:
  - ./sandbox
  - file:///srv/shared
  - { path: ../docs, name: docs }
  - { path: 'ftp://not-a-uri' }
`;
    const { config } = readNativeText(text, 'mcp.yaml');
    const yaml = writeNativeConfig(config).text;
    expect(yaml).toBe(`${SERVER}roots:
  - ./sandbox
  - file:///srv/shared
  - path: ../docs
    name: docs
  - path: ftp://not-a-uri
`);
    for (const [written, file] of [
      [yaml, 'back.yaml'],
      [writeNativeConfig(config, { format: 'json' }).text, 'back.json'],
    ] as const) {
      const back = readNativeText(written, file);
      expect(back.diagnostics).toEqual([]);
      expect(withoutPositions({ ...back.config, files: [] })).toEqual(
        withoutPositions({ ...config, files: [] }),
      );
    }
  });
});
