/**
 * `mcp-host api serve` (the built CLI): on a Unix socket by default or by `--socket`, on a
 * loopback port from the config's `api:` section with the token file it makes (mode 0600,
 * relative to the config's folder); health without a token, every other RPC with it, stdio
 * registration only when the config allows it, server reflection with `--reflection` or
 * `api: reflection: true` (behind the token); SIGTERM stops it and removes the socket.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  credentials,
  Metadata,
  status,
  type Client,
  type ClientDuplexStream,
  type ServiceClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadApiPackage } from '../../src/grpc.js';
import { leakGuard, type LeakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';
import { cliEnv, cliPath, ensureBuiltCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

beforeAll(() => ensureBuiltCli());

const LISTENING = /^mcp-host: api listening on (\S+)$/m;

interface Packages {
  mcp_host: { v1: { McpHostService: ServiceClientConstructor } };
  grpc: {
    health: { v1: { Health: ServiceClientConstructor } };
    reflection: { v1: { ServerReflection: ServiceClientConstructor } };
  };
}
const packages = loadApiPackage() as unknown as Packages;

/** `mcp-host --config <file> api serve <args>` until its listening line; disposing stops it. */
async function startApi(
  guard: LeakGuard,
  file: string,
  stateDir: string,
  args: readonly string[] = [],
) {
  const child = spawn(process.execPath, [cliPath, '--config', file, 'api', 'serve', ...args], {
    env: cliEnv({ MCP_HOST_STATE_DIR: stateDir }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  guard.trackPid(child.pid);
  let stderr = '';
  const waiting = new Set<() => void>();
  // 'close': exited, and its pipes closed (none is left open for the leak check).
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => resolve(code)),
  );
  const address = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      for (const check of [...waiting]) check();
      const match = LISTENING.exec(stderr);
      if (match !== null) resolve(match[1]!);
    });
    void exited.then((code) => {
      if (LISTENING.test(stderr)) return;
      const error = new Error(`the API exited (${code}) before listening: ${stderr}`);
      // Shown even when a disposal error hides this one (SuppressedError).
      console.error(error.message);
      reject(error);
    });
  });
  const insecure = credentials.createInsecure();
  const api = new packages.mcp_host.v1.McpHostService(address, insecure);
  const health = new packages.grpc.health.v1.Health(address, insecure);
  return {
    address,
    api,
    health,
    stderr: () => stderr,
    /** Resolves once stderr matches `pattern` (a log line may come after the RPC's answer). */
    logged(pattern: RegExp): Promise<void> {
      return new Promise((resolve) => {
        const check = () => {
          if (!pattern.test(stderr)) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
        check();
      });
    },
    /** Stops it with SIGTERM; resolves with its exit code. */
    stop(): Promise<number | null> {
      api.close();
      health.close();
      child.kill('SIGTERM');
      return exited;
    },
    async [Symbol.asyncDispose]() {
      if (child.exitCode === null && child.signalCode === null) await this.stop();
    },
  };
}

function rpc<T = Record<string, unknown>>(
  client: Client,
  method: string,
  request: unknown,
  metadata = new Metadata(),
): Promise<T> {
  return new Promise((resolve, reject) => {
    const call = (
      client as unknown as Record<
        string,
        (
          r: unknown,
          m: Metadata,
          o: object,
          cb: (e: ServiceError | null, v?: unknown) => void,
        ) => void
      >
    )[method]!.bind(client);
    call(request, metadata, { deadline: Date.now() + 15_000 }, (error, value) =>
      error === null ? resolve(value as T) : reject(error),
    );
  });
}

interface ReflectionAnswer {
  listServicesResponse?: { service: { name: string }[] };
}

/** The services server reflection lists at `address`, or the error the stream ended with. */
function listServices(address: string, metadata = new Metadata()): Promise<string[]> {
  const client = new packages.grpc.reflection.v1.ServerReflection(
    address,
    credentials.createInsecure(),
  );
  const open = (
    client as unknown as Record<
      string,
      (m: Metadata) => ClientDuplexStream<object, ReflectionAnswer>
    >
  ).ServerReflectionInfo!.bind(client);
  const call = open(metadata);
  return new Promise<string[]>((resolve, reject) => {
    const names: string[] = [];
    call.on('data', (answer: ReflectionAnswer) =>
      names.push(...(answer.listServicesResponse?.service ?? []).map((s) => s.name)),
    );
    // On the stream's end, not its first answer: no call is left open when the client closes.
    call.on('end', () => resolve(names));
    call.on('error', reject);
    call.write({ listServices: '' });
    call.end();
  }).finally(() => client.close());
}

function config(dir: string, api: string): string {
  const file = join(dir, 'mcp.yaml');
  writeFileSync(
    file,
    `servers:\n  legacy:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(mcpFixtures.legacySdk)}]\n${api}`,
  );
  return file;
}

describe('mcp-host api serve', () => {
  it('serves on a Unix socket (--socket), refuses stdio registration, serves reflection with --reflection, and removes the socket on SIGTERM', async () => {
    await using guard = leakGuard();
    using dir = tempDir();
    const socket = join(dir.path, 'api.sock');
    const served = await startApi(guard, config(dir.path, ''), join(dir.path, 'state'), [
      '--socket',
      socket,
      '--reflection',
    ]);
    expect(served.address).toBe(`unix:${socket}`);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(served.stderr()).toMatch(/no token: the socket is mode 0600/);
    expect(await rpc(served.health, 'Check', {})).toEqual({ status: 'SERVING' });
    const { servers } = await rpc<{ servers: Array<{ name: string; state: string }> }>(
      served.api,
      'ListMcpServers',
      {},
    );
    expect(servers).toEqual([
      expect.objectContaining({ name: 'legacy', state: 'SERVER_STATE_READY' }),
    ]);
    const refused = await rpc(served.api, 'RegisterMcpServer', {
      name: 'other',
      stdio: { command: process.execPath },
    }).catch((error: ServiceError) => error);
    expect((refused as ServiceError).code).toBe(status.PERMISSION_DENIED);
    await served.logged(/stdio registration refused/);
    expect(await listServices(served.address)).toContain('mcp_host.v1.McpHostService');
    expect(await served.stop()).toBe(143); // 128 + SIGTERM, as every serving command
    expect(existsSync(socket)).toBe(false);
  }, 60_000);

  it("serves on the config's loopback port with the token file it makes, and allows stdio registration and reflection when the config says so", async () => {
    await using guard = leakGuard();
    using dir = tempDir();
    const file = config(
      dir.path,
      'api:\n  port: 0\n  tokenFile: secrets/api-token\n  allowStdioRegistration: true\n  reflection: true\n',
    );
    await using served = await startApi(guard, file, join(dir.path, 'state'));
    expect(served.address).toMatch(/^127\.0\.0\.1:\d+$/);
    const tokenFile = join(dir.path, 'secrets', 'api-token');
    expect(served.stderr()).toContain(`bearer token made and kept in ${tokenFile}`);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(served.stderr()).not.toContain(token);
    expect(served.stderr()).toMatch(/stdio registration is allowed/);

    expect(await rpc(served.health, 'Check', {})).toEqual({ status: 'SERVING' });
    const refused = await rpc(served.api, 'ListMcpServers', {}).catch((e: ServiceError) => e);
    expect((refused as ServiceError).code).toBe(status.UNAUTHENTICATED);
    const auth = new Metadata();
    auth.set('authorization', `Bearer ${token}`);
    await expect(listServices(served.address)).rejects.toMatchObject({
      code: status.UNAUTHENTICATED,
    });
    expect(await listServices(served.address, auth)).toContain('grpc.health.v1.Health');
    const registered = await rpc<{ status: { state: string } }>(
      served.api,
      'RegisterMcpServer',
      { name: 'other', stdio: { command: process.execPath, args: [mcpFixtures.legacySdk] } },
      auth,
    );
    expect(registered.status.state).toBe('SERVER_STATE_READY');
    await served.logged(/api: server registered/);
    expect(await served.stop()).toBe(143); // 128 + SIGTERM, as every serving command
  }, 60_000);
});
