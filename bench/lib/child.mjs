// Runs a Node script in a fresh child process and returns the JSON line it prints last; makes
// sure the echo server it reports (serverPid) is gone afterwards.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const CHILD_TIMEOUT_MS = 180_000;

/** Runs `node [...nodeArgs] script ...args` (under `taskset -c cpu` when `pinCpu` is given). */
export function runNodeJson(script, args, { nodeArgs = [], pinCpu } = {}) {
  const command = pinCpu === undefined ? process.execPath : 'taskset';
  const argv = [...nodeArgs, script, ...args];
  const fullArgs = pinCpu === undefined ? argv : ['-c', String(pinCpu), process.execPath, ...argv];
  return new Promise((resolve, reject) => {
    const child = spawn(command, fullArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const last = stdout.trimEnd().split('\n').pop() ?? '';
      if (code !== 0 || !last.startsWith('{')) {
        const why = signal === null ? `exit code ${code}` : `signal ${signal}`;
        reject(new Error(`${script} ${args.join(' ')} failed (${why}):\n${stderr}${stdout}`));
        return;
      }
      resolve(JSON.parse(last));
    });
  });
}

/** True if `pid` is a live process (not a zombie waiting to be reaped). */
export function isRunning(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const statPath = `/proc/${pid}/stat`;
  if (!existsSync(statPath)) return true;
  try {
    const stat = readFileSync(statPath, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Kills `pid` if it outlived its client (waiting briefly first); true if it had to. */
export async function reapServer(pid) {
  if (pid === null || pid === undefined) return false;
  for (let i = 0; i < 10 && isRunning(pid); i++) await new Promise((r) => setTimeout(r, 20));
  if (!isRunning(pid)) return false;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
  return true;
}
