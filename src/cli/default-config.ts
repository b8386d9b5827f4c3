/**
 * The embedded default: with no config file anywhere, the CLI runs a demo of three official
 * servers (everything, filesystem on a fresh sandbox directory, memory with a scratch file),
 * started the way users start them, with `npx` and pinned versions. Inside this repository npx
 * finds the devDependency copies without a download; elsewhere it downloads them once.
 * A test keeps the versions equal to package.json's devDependencies.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const DEMO_SERVER_VERSIONS = {
  '@modelcontextprotocol/server-everything': '2026.8.31',
  '@modelcontextprotocol/server-filesystem': '2026.8.31',
  '@modelcontextprotocol/server-memory': '2026.8.31',
} as const;

/** The label the embedded default's servers carry as their source file. */
export const EMBEDDED_CONFIG_LABEL = '<embedded default>';

export interface EmbeddedConfig {
  /** The config as native JSON text (read with `readConfigText`). */
  text: string;
  /** The filesystem server's sandbox. */
  sandboxDir: string;
  /** Removes the sandbox and the memory file. */
  cleanup(): Promise<void>;
}

function npx(name: keyof typeof DEMO_SERVER_VERSIONS, ...args: string[]) {
  return { command: 'npx', args: ['-y', `${name}@${DEMO_SERVER_VERSIONS[name]}`, ...args] };
}

/** Makes the demo's scratch directories and returns the config text. */
export async function createEmbeddedConfig(): Promise<EmbeddedConfig> {
  const root = await mkdtemp(join(tmpdir(), 'mcp-host-demo-'));
  const sandboxDir = join(root, 'sandbox');
  await mkdir(sandboxDir);
  const servers = {
    everything: npx('@modelcontextprotocol/server-everything'),
    filesystem: npx('@modelcontextprotocol/server-filesystem', sandboxDir),
    memory: {
      ...npx('@modelcontextprotocol/server-memory'),
      env: { MEMORY_FILE_PATH: join(root, 'memory.jsonl') },
    },
  };
  return {
    text: JSON.stringify({ servers }, null, 2),
    sandboxDir,
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
