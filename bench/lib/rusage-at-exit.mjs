// Preloaded (`node --import`) into each process bench/cli-probe.mjs measures: when the process
// exits, writes its own CPU time and peak RSS (process.resourceUsage(): this process only, not
// the server it spawned) as one JSON line to the file named by CLI_PROBE_RUSAGE_FILE.
import { appendFileSync } from 'node:fs';

const file = process.env.CLI_PROBE_RUSAGE_FILE;
if (file !== undefined)
  process.once('exit', () => {
    const { userCPUTime, systemCPUTime, maxRSS } = process.resourceUsage();
    appendFileSync(file, `${JSON.stringify({ userCPUTime, systemCPUTime, maxRSS })}\n`);
  });
