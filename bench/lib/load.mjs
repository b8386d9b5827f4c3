// What the scenario workers share: the HTTP echo server they call, and the closed loop of calls.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const HTTP_ECHO_SERVER = fileURLToPath(new URL('../http-echo-server.mjs', import.meta.url));

/**
 * Starts the HTTP echo server (`sse`: it answers on SSE streams); resolves once it listens, to its
 * URL, pid and a stop function.
 */
export async function startHttpEcho(sse = false) {
  const child = spawn(process.execPath, [HTTP_ECHO_SERVER, ...(sse ? ['--sse'] : [])], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text) => {
      out += text;
      if (out.includes('\n')) resolve(JSON.parse(out).port);
    });
    child.once('error', reject);
    void exited.then(() => reject(new Error(`the HTTP echo server exited: ${out}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    pid: child.pid,
    stop: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

/**
 * Runs `total` calls keeping `inFlight` outstanding (each response's continuation sends the next
 * request); returns each call's latency in ms. Plain callbacks, no async function per lane: the
 * harness's own cost per call (two clock reads and one store) is the same for every client and
 * small next to theirs, so it does not flatten the ratios.
 */
export function closedLoop(call, toolArgs, inFlight, total) {
  const latencies = new Float64Array(total);
  if (total === 0) return Promise.resolve(latencies);
  return new Promise((resolve, reject) => {
    let issued = 0;
    let done = 0;
    const send = () => {
      const index = issued++;
      const start = performance.now();
      call(toolArgs).then(() => {
        latencies[index] = performance.now() - start;
        if (++done === total) resolve(latencies);
        else if (issued < total) send();
      }, reject);
    };
    for (let lane = 0; lane < Math.min(inFlight, total); lane++) send();
  });
}
