// CPU time of another process (the echo server), read from /proc on Linux; undefined elsewhere.
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every mainstream Linux

/** User plus system CPU of `pid` in microseconds, or undefined if it cannot be read. */
export function processCpuMicros(pid) {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command name: state is field 0, utime field 11, stime field 12.
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
