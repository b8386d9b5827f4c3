/**
 * HAProxy for the tests: the binary (found on PATH or in /usr/sbin; when missing and this process
 * is root, Debian's package is installed, with its service kept from starting), the checked-in
 * deploy/haproxy.cfg with only its addresses and server lines changed, a foreground HAProxy
 * process (`-db`, no daemon) on 127.0.0.1 with its log lines kept, and a wait on its servers'
 * health as its status page says. Disposing stops the process and waits for its exit.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { leakGuard } from './leak-guard.js';
import { closedPort, repoRoot } from './run-built-cli.js';

/** The shipped configuration, which the tests run. */
export const haproxyConfigPath = join(repoRoot, 'deploy', 'haproxy.cfg');

let binary: string | undefined;

/** Where `haproxy` is, or undefined. */
function findHaproxy(): string | undefined {
  const which = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' });
  const found = which.status === 0 ? which.stdout.trim() : '';
  if (found !== '') return found;
  return ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy'].find((path) => existsSync(path));
}

/**
 * The `haproxy` binary. When it is missing and this process is root (CI), Debian's package is
 * installed (`apt-get install -y --no-install-recommends haproxy`, after `apt-get update` if the
 * first try fails); a `policy-rc.d` that says 101 keeps the package's own service from starting
 * (tests run their own process). Throws an error saying what to do otherwise.
 */
export function haproxyBinary(): string {
  binary ??= findHaproxy() ?? installHaproxy();
  return binary;
}

function installHaproxy(): string {
  if (process.getuid?.() !== 0)
    throw new Error(
      'haproxy is not installed and this process is not root, so it cannot install it: ' +
        'install HAProxy 2.6 or later (Debian: `apt-get install haproxy`) to run this test',
    );
  const policy = '/usr/sbin/policy-rc.d';
  const ownPolicy = !existsSync(policy);
  if (ownPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args: string[]) =>
    execFileSync('apt-get', args, { env, stdio: 'pipe', timeout: 300_000 });
  // Another test's apt-get (PostgreSQL's) may hold dpkg's lock: wait for it.
  const install = () =>
    apt(['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '--no-install-recommends', 'haproxy']);
  try {
    try {
      install();
    } catch {
      apt(['update']);
      install();
    }
  } catch (error) {
    throw new Error(`installing haproxy with apt-get failed: ${String(error)}`);
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
  const found = findHaproxy();
  if (found === undefined) throw new Error('apt-get installed haproxy, but no haproxy binary');
  return found;
}

/** `haproxy -c -f <file>`: whether HAProxy accepts a configuration, and what it said. */
export function checkHaproxyConfig(file: string): { ok: boolean; output: string } {
  const run = spawnSync(haproxyBinary(), ['-c', '-f', file], { encoding: 'utf8' });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}`.trim() };
}

/** One backend server line: its name and `host:port`. */
export interface HaproxyServer {
  name: string;
  address: string;
}

/** What `renderHaproxyConfig` changes in deploy/haproxy.cfg. */
export interface HaproxyAddresses {
  /** `host:port` of the `mcp` frontend. */
  bind: string;
  /** `host:port` of the status page. */
  statsBind: string;
  /** The replicas (the `server` lines of `backend gateways`). */
  servers: readonly HaproxyServer[];
}

/**
 * deploy/haproxy.cfg (or `text`) with the `bind` of `frontend mcp` and of `frontend stats`, and
 * the `server` lines of `backend gateways`, replaced; everything else as shipped. Throws when one
 * of those is not found exactly once (the shipped file changed shape: the test must follow).
 */
export function renderHaproxyConfig(text: string, addresses: HaproxyAddresses): string {
  const out: string[] = [];
  let section = '';
  const done = { mcp: 0, stats: 0, servers: 0 };
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (/^\S/.test(line)) section = trimmed;
    if (section === 'frontend mcp' && trimmed.startsWith('bind ')) {
      out.push(`    bind ${addresses.bind}`);
      done.mcp++;
    } else if (section === 'frontend stats' && trimmed.startsWith('bind ')) {
      out.push(`    bind ${addresses.statsBind}`);
      done.stats++;
    } else if (section === 'backend gateways' && trimmed.startsWith('server ')) {
      if (done.servers++ === 0)
        for (const server of addresses.servers)
          out.push(`    server ${server.name} ${server.address}`);
    } else out.push(line);
  }
  if (done.mcp !== 1 || done.stats !== 1 || done.servers === 0)
    throw new Error(
      `deploy/haproxy.cfg no longer has one bind in 'frontend mcp' and 'frontend stats' and server lines in 'backend gateways' (${JSON.stringify(done)})`,
    );
  return out.join('\n');
}

/** One server's state on HAProxy's status page: `UP`, `DOWN`, `UP 1/2`, `no check`, ... */
export type ServerStates = ReadonlyMap<string, string>;

/** A running HAProxy. */
export interface HaproxyProcess extends AsyncDisposable {
  /** The MCP endpoint through HAProxy: `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** The `Host` value clients send to it (`127.0.0.1:<port>`). */
  readonly host: string;
  /**
   * Its log lines so far (one per request, `option httplog`). HAProxy writes them to a file, not a
   * pipe: it never blocks on its log, so lines written to a pipe a busy test process reads late
   * would be dropped.
   */
  readonly logs: readonly string[];
  /** The servers' states as its status page says now. */
  serverStates(): Promise<ServerStates>;
  /** Resolves once every server's state passes `test`; rejects after `timeoutMs` saying the states. */
  waitForServers(test: (states: ServerStates) => boolean, timeoutMs: number): Promise<void>;
  /** Resolves once `count` log lines pass `test`; rejects after `timeoutMs` or if HAProxy exits. */
  waitForLogs(test: (line: string) => boolean, count: number, timeoutMs: number): Promise<void>;
}

/**
 * Starts HAProxy in the foreground with deploy/haproxy.cfg rendered for `servers`, its frontend
 * and status page on free ports of 127.0.0.1 (the config file is written into `dir`). Resolves
 * once its status page answers.
 */
export async function startHaproxy(options: {
  dir: string;
  servers: readonly HaproxyServer[];
  /** The frontend's port (default: a free one): a `Host` the replicas must allow, known first. */
  port?: number;
}): Promise<HaproxyProcess> {
  const port = options.port ?? (await closedPort());
  const statsPort = await closedPort();
  const file = join(options.dir, 'haproxy.cfg');
  writeFileSync(
    file,
    renderHaproxyConfig(readFileSync(haproxyConfigPath, 'utf8'), {
      bind: `127.0.0.1:${port}`,
      statsBind: `127.0.0.1:${statsPort}`,
      servers: options.servers,
    }),
  );
  const guard = leakGuard();
  const logFile = join(options.dir, 'haproxy.log');
  const logFd = openSync(logFile, 'w');
  const child = spawn(haproxyBinary(), ['-db', '-f', file], { stdio: ['ignore', logFd, 'pipe'] });
  closeSync(logFd);
  guard.trackPid(child.pid);
  const output: string[] = [];
  const waiters = new Set<() => void>();
  let exited = false;
  const exit = once(child, 'exit').then(() => {
    exited = true;
    for (const wake of waiters) wake();
  });
  const logs = (): string[] => {
    const text = readFileSync(logFile, 'utf8');
    return text
      .slice(0, text.lastIndexOf('\n') + 1)
      .split('\n')
      .slice(0, -1);
  };
  createInterface({ input: child.stderr! }).on('line', (line) => output.push(line));

  /** Waits for `ready()` (checked every 50 ms: HAProxy has no event to wait on), bounded by `timeoutMs`. */
  const until = (ready: () => Promise<boolean> | boolean, what: () => string, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      let checking = false;
      const check = async () => {
        if (checking) return;
        checking = true;
        try {
          if (await ready()) return finish();
        } catch {
          // Not answering yet.
        } finally {
          checking = false;
        }
        if (exited) finish(new Error(`haproxy exited: ${output.join('\n')}`));
      };
      const poll = setInterval(() => void check(), 50);
      const deadline = setTimeout(
        () => finish(new Error(`${what()} (not within ${timeoutMs} ms)`)),
        timeoutMs,
      );
      const finish = (error?: Error) => {
        clearInterval(poll);
        clearTimeout(deadline);
        waiters.delete(wake);
        if (error === undefined) resolve();
        else reject(error);
      };
      const wake = () => void check();
      waiters.add(wake);
      void check();
    });

  const serverStates = async (): Promise<ServerStates> => {
    const response = await fetch(`http://127.0.0.1:${statsPort}/stats;csv`);
    const lines = (await response.text()).split('\n');
    const header = (lines[0] ?? '').replace(/^# /, '').split(',');
    const [proxy, server, status] = ['pxname', 'svname', 'status'].map((k) => header.indexOf(k));
    const states = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const cells = line.split(',');
      if (cells[proxy!] !== 'gateways' || ['FRONTEND', 'BACKEND'].includes(cells[server!] ?? ''))
        continue;
      states.set(cells[server!]!, cells[status!]!);
    }
    return states;
  };

  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exit;
      clearTimeout(killer);
    }
    await guard[Symbol.asyncDispose]();
  };
  try {
    await until(
      async () => (await serverStates()).size === options.servers.length,
      () => `haproxy's status page did not answer: ${output.join('\n')}`,
      15_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  let last: ServerStates = new Map();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    host: `127.0.0.1:${port}`,
    get logs() {
      return logs();
    },
    serverStates,
    waitForServers: (test, timeoutMs) =>
      until(
        async () => test((last = await serverStates())),
        () => `haproxy's servers: ${JSON.stringify(Object.fromEntries(last))}`,
        timeoutMs,
      ),
    waitForLogs: (test, count, timeoutMs) =>
      until(
        () => logs().filter(test).length >= count,
        () => `${logs().filter(test).length} of ${count} haproxy log lines:\n${logs().join('\n')}`,
        timeoutMs,
      ),
    [Symbol.asyncDispose]: stop,
  };
}
