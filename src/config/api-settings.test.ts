import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/scratch.js';
import { resolveApiSettings } from './api-settings.js';
import { formatDiagnostic } from './diagnostics.js';
import { loadConfig } from './load.js';
import { readNativeText } from './native/native.js';
import { writeNativeConfig } from './native/native-write.js';

const SERVERS = 'servers:\n  files:\n    command: mcp-files\n';
const stateDir = '/state';

describe('the api: section', () => {
  it('defaults to the socket <state dir>/api.sock, no port, stdio registration off', () => {
    const { config } = readNativeText(SERVERS, '/x/mcp.yaml');
    expect(resolveApiSettings(config, { stateDir, homeDir: '/home/me' })).toEqual({
      socket: join('/state', 'api.sock'),
      port: undefined,
      host: '127.0.0.1',
      tokenFile: join('/state', 'api-token'),
      allowStdioRegistration: false,
      reflection: false,
    });
  });

  it("reads its places and files relative to the file's folder, and the flags replace the places", () => {
    const { config, diagnostics } = readNativeText(
      `${SERVERS}api:\n  socket: run/api.sock\n  port: 7070\n  host: ::1\n  tokenFile: ~/api-token\n  allowStdioRegistration: true\n  reflection: true\n`,
      '/x/mcp.yaml',
    );
    expect(diagnostics).toEqual([]);
    expect(resolveApiSettings(config, { stateDir, homeDir: '/home/me' })).toEqual({
      socket: '/x/run/api.sock',
      port: 7070,
      host: '::1',
      tokenFile: '/home/me/api-token',
      allowStdioRegistration: true,
      reflection: true,
    });
    const flagged = resolveApiSettings(config, { stateDir, overrides: { port: 0 } });
    expect(flagged).toMatchObject({ socket: undefined, port: 0 });
  });

  it('refuses a host that is not loopback and unknown keys, naming the key', () => {
    const { diagnostics } = readNativeText(
      `${SERVERS}api:\n  host: 0.0.0.0\n  bind: everywhere\n`,
      '/x/mcp.yaml',
    );
    const lines = diagnostics.map(formatDiagnostic).join('\n');
    expect(lines).toContain('api.host');
    expect(lines).toContain('api.bind');
  });

  it('is written back as it was read, and the last file wins whole', async () => {
    const text = `${SERVERS}api:\n  port: 1\n  allowStdioRegistration: true\n  reflection: true\n`;
    const first = readNativeText(text, '/x/mcp.yaml');
    const written = writeNativeConfig(first.config).text;
    expect(written).toContain(
      'api:\n  port: 1\n  allowStdioRegistration: true\n  reflection: true\n',
    );
    const { source: _a, ...again } = readNativeText(written, '/x/mcp.yaml').config.api!;
    expect(again).toEqual({ port: 1, allowStdioRegistration: true, reflection: true });
    using dir = tempDir();
    const a = join(dir.path, 'a.yaml');
    const b = join(dir.path, 'b.yaml');
    writeFileSync(a, `${SERVERS}api:\n  socket: /a.sock\n  allowStdioRegistration: true\n`);
    writeFileSync(b, 'servers: {}\napi:\n  port: 0\n');
    const { config: merged } = await loadConfig({ files: [a, b] });
    const { source: _b, ...last } = merged.api!;
    expect(last).toEqual({ port: 0 });
  });
});
