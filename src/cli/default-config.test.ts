import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readConfigText } from '../config.js';
import {
  createEmbeddedConfig,
  DEMO_SERVER_VERSIONS,
  EMBEDDED_CONFIG_LABEL,
} from './default-config.js';

describe('the embedded default config', () => {
  it('pins the demo servers at the versions of package.json devDependencies', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const [name, version] of Object.entries(DEMO_SERVER_VERSIONS))
      expect(pkg.devDependencies[name], name).toBe(version);
  });

  it('is a valid native config of three stdio servers on a fresh sandbox', async () => {
    const embedded = await createEmbeddedConfig();
    try {
      const { config, diagnostics } = readConfigText(embedded.text, EMBEDDED_CONFIG_LABEL, {
        dialect: 'mcp-host',
      });
      expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(config.servers.map((s) => s.name)).toEqual(['everything', 'filesystem', 'memory']);
      expect(embedded.text).toContain(embedded.sandboxDir);
    } finally {
      await embedded.cleanup();
    }
  });
});
