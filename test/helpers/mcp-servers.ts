/**
 * Real MCP servers nobody here wrote, started the way users start them (over stdio), behind an
 * McpClient, as `await using` resources that also prove nothing leaked.
 */
import { createRequire } from 'node:module';
import { McpClient, type McpClientOptions } from '../../src/index.js';
import { StdioTransport } from '../../src/stdio.js';
import { leakGuard } from './leak-guard.js';
import { RecordingTransport } from './recording-transport.js';

const require = createRequire(import.meta.url);

/** Entry scripts of the official reference servers installed as devDependencies. */
export const officialServers = {
  everything: {
    script: require.resolve('@modelcontextprotocol/server-everything/dist/index.js'),
    args: ['stdio'],
  },
} as const;

export interface RunningClient extends AsyncDisposable {
  readonly client: McpClient;
  /** Every transport the client opened, recording what the client sent. */
  readonly transports: RecordingTransport[];
}

/** Connects an McpClient to a script run with this Node over stdio; disposing closes and checks for leaks. */
export async function connectScript(
  name: string,
  script: string,
  args: readonly string[],
  options: Partial<McpClientOptions> & { env?: Record<string, string>; cwd?: string } = {},
): Promise<RunningClient> {
  const guard = leakGuard();
  const { env, cwd, ...clientOptions } = options;
  const transports: RecordingTransport[] = [];
  const client = new McpClient({
    serverName: name,
    transport: () => {
      const transport = new RecordingTransport(
        new StdioTransport({
          serverName: name,
          command: process.execPath,
          args: [script, ...args],
          env,
          cwd,
        }),
      );
      transports.push(transport);
      return transport;
    },
    ...clientOptions,
  });
  try {
    await client.connect();
  } catch (error) {
    await client.close();
    await guard[Symbol.asyncDispose]();
    throw error;
  }
  return {
    client,
    transports,
    async [Symbol.asyncDispose]() {
      await client.close();
      await guard[Symbol.asyncDispose]();
    },
  };
}
