/**
 * One gateway replica for the fleet tests: the built CLI's `mcp-host --config <file> gateway
 * serve --transport http --port 0 [args]` as a child process, resolved once its listening line
 * says where (rejects if it exits first), its stderr kept as lines (its backends' stderr, hence the
 * fixtures' records, goes there), killable with any signal (SIGKILL: a replica that dies), and
 * stopped with SIGTERM, its exit awaited, when disposed. Its process tree (its stdio backends,
 * its orphan watchdog) is tracked by a leak guard, by pid and tree marker, so a backend left
 * behind, even by a replica killed with SIGKILL, fails the test.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { LISTENING, StderrLines } from './gateway-harness.js';
import { leakGuard } from './leak-guard.js';
import { readEnviron, runningDescendants, waitUntilGone } from './processes.js';
import { cliEnv, cliPath } from './run-built-cli.js';

/** A running `gateway serve` process. */
export interface GatewayReplica extends AsyncDisposable {
  /** Its name (the `--replica-id` given). */
  readonly id: string;
  /** Its own `/mcp` URL (not through the load balancer). */
  readonly url: string;
  /** `127.0.0.1:<port>`: where the load balancer reaches it. */
  readonly address: string;
  readonly pid: number;
  readonly stderr: StderrLines;
  /** Whether it has exited. */
  readonly exited: boolean;
  /** Sends `signal`; resolves once the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `gateway serve` over HTTP on a free 127.0.0.1 port with `--replica-id <id>`, the config
 * `file`, the environment `env` (on top of the test's, without MCP_HOST_*) and more `args`.
 */
export async function startGatewayReplica(
  id: string,
  file: string,
  env: Record<string, string | undefined>,
  args: readonly string[] = [],
): Promise<GatewayReplica> {
  const guard = leakGuard();
  const child = spawn(
    process.execPath,
    [
      cliPath,
      '--config',
      file,
      'gateway',
      'serve',
      '--transport',
      'http',
      '--port',
      '0',
      '--replica-id',
      id,
      ...args,
    ],
    { env: cliEnv(env), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  guard.trackPid(child.pid);
  const stderr = new StderrLines();
  let exited = false;
  const exit = once(child, 'exit').then(() => {
    exited = true;
  });
  const kill = async (signal: NodeJS.Signals) => {
    if (!exited) child.kill(signal);
    await exit;
  };
  let url: string;
  try {
    url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr.push(chunk);
        const match = LISTENING.exec(stderr.toString());
        if (match !== null) resolve(match[1]!);
      });
      void exit.then(() =>
        reject(new Error(`replica ${id} exited before listening:\n${stderr.toString()}`)),
      );
    });
  } catch (error) {
    await guard[Symbol.asyncDispose]();
    throw error;
  }
  // Its backends (and its orphan watchdog): after a SIGKILL they are no longer its descendants,
  // so they are known by pid and by their tree marker, and must be gone too.
  const tree = runningDescendants(child.pid!);
  for (const p of tree) {
    guard.trackPid(p.pid);
    guard.trackMarker(readEnviron(p.pid)?.get('MCP_HOST_TREE'));
  }
  return {
    id,
    url,
    address: new URL(url).host,
    pid: child.pid!,
    stderr,
    get exited() {
      return exited;
    },
    kill,
    async [Symbol.asyncDispose]() {
      await kill('SIGTERM');
      // Killed, its backends go when its orphan watchdog sees it gone (not this process's
      // children: no exit event to wait on).
      await waitUntilGone(
        tree.map((p) => p.pid),
        10_000,
      );
      await guard[Symbol.asyncDispose]();
    },
  };
}
