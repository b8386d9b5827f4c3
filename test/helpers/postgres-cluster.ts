/**
 * A throwaway PostgreSQL cluster for tests: `await using pg = await startPostgres()` makes a
 * temporary data directory, runs `initdb` and starts the server on 127.0.0.1 (a free port, trust
 * authentication, a private Unix socket directory, durability off for speed), and at scope end
 * stops it and removes the directory.
 *
 * - Binaries: `pg_config --bindir`, else the highest /usr/lib/postgresql/<n>/bin. When there are
 *   none and this process is root (CI), Debian's `postgresql` package is installed with apt-get;
 *   otherwise `startPostgres` fails with a message saying what to install.
 * - `initdb` refuses to run as root: as root, initdb and the server run as the `postgres` system
 *   user (the Debian package makes it; else `nobody`) through `runuser`, in a directory that user
 *   owns.
 * - The server is started with `pg_ctl start`, so it is not a child of the test process (a test's
 *   `leakGuard()` does not see it); `stop()` (or disposal) runs `pg_ctl stop -m fast`, and an exit
 *   hook stops any cluster still running when the test process exits.
 *
 * `createDatabase()` gives each test file (or test) its own database on one cluster.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

export interface PostgresCluster extends AsyncDisposable {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres`: the cluster's default database. */
  readonly url: string;
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The data directory (removed by `stop()`). */
  readonly dataDir: string;
  /** Creates a fresh, empty database (a random name by default) and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server (`pg_ctl stop -m fast`) and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  /** Extra server settings (`-c name=value`), e.g. `{ max_connections: '300' }`. */
  settings?: Readonly<Record<string, string>>;
}

/** Where the PostgreSQL server binaries are, or undefined when they are not installed. */
export function findPostgresBinDir(): string | undefined {
  const hasServer = (dir: string): boolean =>
    existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'));
  try {
    const dir = execFileSync('pg_config', ['--bindir'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    if (dir !== '' && hasServer(dir)) return dir;
  } catch {
    // No pg_config (it comes with libpq-dev): look where Debian puts the server.
  }
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const dir = join(root, version, 'bin');
    if (hasServer(dir)) return dir;
  }
  return undefined;
}

const isRoot = (): boolean => process.getuid?.() === 0;
const INSTALL_TIMEOUT_MS = 900_000;

/** The binaries, installing Debian's package first when they are missing and we are root. */
export function ensurePostgresBinDir(): string {
  const found = findPostgresBinDir();
  if (found !== undefined) return found;
  if (!isRoot())
    throw new Error(
      'PostgreSQL is not installed (no pg_config --bindir, no /usr/lib/postgresql/<n>/bin) and ' +
        'this process is not root, so it cannot install it: install the server (Debian: ' +
        '`apt-get install postgresql`) to run the PostgreSQL tests',
    );
  // Test files run in parallel: one installs, the others wait for it (dpkg allows one at a time).
  const lock = join(tmpdir(), 'mcp-host-postgres-install.lock');
  const deadline = Date.now() + INSTALL_TIMEOUT_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`waited too long for the lock ${lock}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
      const installed = findPostgresBinDir();
      if (installed !== undefined) return installed;
    }
  }
  try {
    const found = findPostgresBinDir(); // installed while we waited for the lock
    if (found !== undefined) return found;
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const apt = (args: string[]): void =>
      void execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: INSTALL_TIMEOUT_MS,
      });
    const install = (): void => apt(['install', '-y', '--no-install-recommends', 'postgresql']);
    try {
      install();
    } catch {
      // A fresh machine may have no package lists yet.
      apt(['update']);
      install();
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  const dir = findPostgresBinDir();
  if (dir === undefined)
    throw new Error('apt-get installed postgresql, but no server binaries were found after it');
  return dir;
}

/** The unprivileged account that runs the server when we are root. */
function serverUser(): { name: string; uid: number; gid: number } | undefined {
  if (!isRoot()) return undefined;
  const passwd = readFileSync('/etc/passwd', 'utf8').split('\n');
  for (const name of ['postgres', 'nobody']) {
    const fields = passwd.find((line) => line.startsWith(`${name}:`))?.split(':');
    if (fields !== undefined) return { name, uid: Number(fields[2]), gid: Number(fields[3]) };
  }
  throw new Error('running as root, but there is no postgres or nobody user to run PostgreSQL as');
}

function run(
  user: string | undefined,
  command: string,
  args: string[],
  timeoutMs: number,
): Promise<string> {
  const [file, argv] =
    user === undefined ? [command, args] : ['runuser', ['-u', user, '--', command, ...args]];
  return new Promise((resolve, reject) => {
    execFile(
      file,
      argv,
      { timeout: timeoutMs, cwd: '/', encoding: 'utf8', maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout);
        else reject(new Error(`${command} failed: ${error.message}\n${stderr}`));
      },
    );
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Clusters still running, stopped synchronously if the test process exits without stopping them. */
const running = new Map<string, () => void>();
let exitHookInstalled = false;
function stopAllAtExit(): void {
  for (const stop of running.values()) stop();
}

/** Starts a throwaway cluster on 127.0.0.1; see the module comment. */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresCluster> {
  const binDir = ensurePostgresBinDir();
  const user = serverUser();
  // As root, in /tmp: the server's user must reach its directory (root's TMPDIR may be private).
  const root = mkdtempSync(join(user === undefined ? tmpdir() : '/tmp', 'mcp-host-pg-'));
  const dataDir = join(root, 'data');
  const socketDir = root;
  const logFile = join(root, 'server.log');
  if (user !== undefined) chownSync(root, user.uid, user.gid);
  const userName = user?.name;
  const bin = (name: string): string => join(binDir, name);
  const removeRoot = (): void => rmSync(root, { recursive: true, force: true });

  try {
    await run(
      userName,
      bin('initdb'),
      ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync'],
      60_000,
    );
  } catch (error) {
    removeRoot();
    throw error;
  }

  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: socketDir,
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    shared_buffers: '32MB',
    max_connections: '300',
    ...options.settings,
  };
  let port = 0;
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    const serverOptions = Object.entries({ ...settings, port: String(port) })
      .map(([name, value]) => `-c ${name}=${value}`)
      .join(' ');
    try {
      await run(
        userName,
        bin('pg_ctl'),
        ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', serverOptions],
        90_000,
      );
      break;
    } catch (error) {
      // Someone may have taken the port between our check and the server's bind: try another.
      if (attempt >= 3) {
        const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : '';
        removeRoot();
        throw new Error(`${(error as Error).message}\nserver log:\n${log}`);
      }
    }
  }

  const stopArgs = (mode: string): string[] => [
    'stop',
    '-D',
    dataDir,
    '-m',
    mode,
    '-w',
    '-t',
    '30',
  ];
  running.set(root, () => {
    try {
      const [file, argv] =
        userName === undefined
          ? [bin('pg_ctl'), stopArgs('immediate')]
          : ['runuser', ['-u', userName, '--', bin('pg_ctl'), ...stopArgs('immediate')]];
      execFileSync(file, argv, { stdio: 'ignore', timeout: 30_000 });
    } catch {
      // Already stopped.
    }
    removeRoot();
  });
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', stopAllAtExit);
  }

  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      running.delete(root);
      try {
        await run(userName, bin('pg_ctl'), stopArgs('fast'), 60_000);
      } finally {
        removeRoot();
      }
    })());

  return {
    url,
    host: '127.0.0.1',
    port,
    dataDir,
    async createDatabase(name = `test_${randomBytes(6).toString('hex')}`) {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
        throw new Error(`createDatabase: '${name}' is not a plain lower-case SQL name`);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgresql://postgres@127.0.0.1:${port}/${name}`;
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/**
 * For a test file whose tests share one throwaway cluster: starts it (installing PostgreSQL first
 * on a fresh CI machine, hence the long bound) with a database of the file's own before the tests,
 * stops it after them. Its URL and the cluster are read inside the tests.
 */
export function postgresForTests(): { url(): string; cluster(): PostgresCluster } {
  let cluster: PostgresCluster | undefined;
  let url: string | undefined;
  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.createDatabase();
  }, 600_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('postgresForTests: the cluster has not started');
    return value;
  };
  return { url: () => started(url), cluster: () => started(cluster) };
}

/** A schema name no other test uses (`<prefix>_<12 hex digits>`). */
export function freshSchemaName(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}
