import { debugLogger } from '../../internal/debug-logger.js';
import type { Logger } from '../../internal/logger.js';
import type { OrphanWatchdog } from './orphan-watchdog.js';
import {
  descendantsOf,
  isAlive,
  newProcesses,
  pidsWithEnvMarker,
  signalAll,
  signalGroup,
  startTimeOf,
  taskkillTree,
} from './process-tree.js';

/** The environment variable that marks every process of one server's tree. */
export const TREE_MARKER_ENV = 'MCP_HOST_TREE';

export interface ServerTreeOptions {
  /** Told the tree's process group from `setRoot()` to `release()` (none: no watchdog). */
  watchdog?: OrphanWatchdog | undefined;
  /** Where the watchdog reports trouble. */
  logger?: Logger;
}

/**
 * The process tree of one server: the process we spawned (leader of its own process group), its
 * descendants, and anything carrying the tree's environment marker. Descendants are found by
 * walking parent links while the leader lives, and by the marker after it died (re-parented
 * orphans), so a grandchild that left the process group is not missed. While the tree is known,
 * the watchdog holds its process group, to kill it if this process dies without an exit hook.
 */
export class ServerTree {
  readonly marker = treeMarker();
  readonly #known = new Set<number>();
  /** Every process the latest snapshot saw, members or not (see `snapshot`). */
  readonly #seen = new Set<number>();
  #rootPid: number | undefined;
  /** The root's start (clock ticks since boot): no member of the tree started before it. */
  #since: number | undefined;
  readonly #watchdog: OrphanWatchdog | undefined;
  readonly #logger: Logger;

  constructor(options: ServerTreeOptions = {}) {
    this.#watchdog = options.watchdog;
    this.#logger = options.logger ?? debugLogger;
  }

  /** Attaches the spawned process, the leader of its own process group; call it at once. */
  setRoot(pid: number): void {
    this.#rootPid = pid;
    this.#watchdog?.hold(pid, this.#logger);
    this.#since = startTimeOf(pid);
    liveTrees.add(this);
    installExitHook();
  }

  get rootPid(): number | undefined {
    return this.#rootPid;
  }

  /**
   * Refreshes the set of known members; returns those still alive (root excluded).
   *
   * Each process is judged once, when a snapshot first sees it: one that is not a member then
   * never becomes one (a process cannot join a group outside its session, the server's session
   * holds only its descendants, and the marker is inherited at birth), and a member stays one
   * until it dies. So after the first snapshot, which reads every process, the next ones read
   * only the processes started since (`newProcesses`): a process's parent is judged before it.
   */
  snapshot(): number[] {
    const root = this.#rootPid;
    if (root === undefined) return [];
    if (process.platform === 'win32') return [];
    const processes = newProcesses(this.#seen);
    for (const pid of descendantsOf([root, ...this.#known], processes)) this.#known.add(pid);
    for (const p of processes)
      if (p.pgid === root && p.pid !== root && p.state !== 'Z') this.#known.add(p.pid);
    for (const pid of pidsWithEnvMarker(TREE_MARKER_ENV, this.marker, processes, this.#since))
      if (pid !== root) this.#known.add(pid);
    const alive: number[] = [];
    for (const pid of this.#known) {
      if (isAlive(pid)) alive.push(pid);
      else this.#known.delete(pid);
    }
    return alive;
  }

  /** Signals the leader, its group and every known member. */
  signal(signal: NodeJS.Signals): void {
    const root = this.#rootPid;
    if (root === undefined) return;
    if (process.platform === 'win32') {
      if (signal === 'SIGKILL' || signal === 'SIGTERM') taskkillTree(root);
      return;
    }
    const members = this.snapshot();
    signalGroup(root, signal);
    signalAll([root, ...members], signal);
  }

  /** Members other than the leader still alive. */
  survivors(): number[] {
    return this.snapshot();
  }

  /**
   * Kills everything now, synchronously; for exit hooks and last resorts. The whole group has
   * SIGKILL pending (none of it can fork any more), so the watchdog lets go of it at once: it then
   * exits as soon as this process does, and never signals the id once the system may reuse it.
   * The line is in the watchdog's pipe when this returns (a pipe write is attempted at once).
   */
  killNow(): void {
    this.signal('SIGKILL');
    if (this.#rootPid !== undefined) this.#watchdog?.release(this.#rootPid);
  }

  /** Forgets the tree (after everything in it is gone): its group id may be reused from now on. */
  release(): void {
    liveTrees.delete(this);
    if (this.#rootPid !== undefined) this.#watchdog?.release(this.#rootPid);
  }
}

let lastClock = 0n;

/**
 * A mark no other tree on the machine carries, in a UUID's shape (8-4-4-4-12 hex digits, as the
 * `crypto.randomUUID()` it replaces): this process's id, the monotonic clock (strictly increasing
 * here; no later process with the same id reads the same time) and 32 random bits. Made without
 * crypto, whose first use loads Web Crypto's modules (about 1.5 ms of CPU) just before a spawn:
 * the mark names the tree, it guards nothing (any process may set any variable on its children).
 */
function treeMarker(): string {
  let clock = process.hrtime.bigint();
  if (clock <= lastClock) clock = lastClock + 1n;
  lastClock = clock;
  const hex = (value: number | bigint, digits: number) =>
    value.toString(16).padStart(digits, '0').slice(-digits);
  const pid = hex(process.pid, 8);
  const time = hex(clock, 16);
  const random = hex(Math.floor(Math.random() * 0x1_0000_0000), 8);
  return `${pid}-${time.slice(0, 4)}-${time.slice(4, 8)}-${time.slice(8, 12)}-${time.slice(12)}${random}`;
}

/** What every copy of this module in the process shares: one set of live trees, one exit hook. */
interface SharedState {
  trees: Set<{ killNow(): void }>;
  hooked: boolean;
}

/**
 * Kept on `globalThis` under a registered symbol, so that two copies of mcp-host in one process
 * (two versions in node_modules, or a test runner that reloads modules per file) share one exit
 * hook instead of adding one each.
 */
const shared: SharedState = ((globalThis as Record<symbol, SharedState | undefined>)[
  Symbol.for('mcp-host.stdio.server-trees')
] ??= { trees: new Set(), hooked: false });
const liveTrees = shared.trees as Set<ServerTree>;

/**
 * When this process exits, kill every server tree still known, synchronously: an exit hook
 * cannot wait, so there is no graceful ladder here (graceful shutdown is `closeAllStdioServers`).
 */
function installExitHook(): void {
  if (shared.hooked) return;
  shared.hooked = true;
  process.once('exit', () => {
    for (const tree of shared.trees) tree.killNow();
    shared.trees.clear();
  });
}
