// The server the conformance suite's server scenarios run against (test/conformance/run.mjs):
//   gateway  the built CLI (dist/cli.js) as `gateway serve --transport http --port 0 --no-auth`,
//            fronting the fixture test/fixtures/mcp/conformance-backend.mjs over stdio, with the
//            backend's tool and prompt names passed through (defaults.naming.passThrough)
//   fixture  the same fixture serving Streamable HTTP itself (`--http`), to tell the gateway's
//            failures from the fixture's
// Both listen on 127.0.0.1, a free port; `start()` resolves with the endpoint once the process has
// printed it, and `stop()` ends the process (stdin closed, then SIGTERM, then SIGKILL, each after
// a bounded wait).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The targets `--target` accepts. */
export const TARGETS = ['gateway', 'fixture'];

const START_TIMEOUT_MS = 60_000;
const STOP_WAIT_MS = 5_000;

/** The line the gateway prints on stderr once it listens (docs/gateway.md). */
const GATEWAY_LISTENING = /mcp-host: gateway listening on (http:\/\/\S+)/;
/** The line the fixture prints on stderr once it listens (test/fixtures/mcp/lib/http.mjs). */
const FIXTURE_READY = /^ready (http:\/\/\S+)/m;

/**
 * Starts `target` and resolves with `{ url, describe, exited, stop }`: `exited()` is the exit
 * (code or signal) once the process has gone, `stop()` ends it. Rejects, with the process's
 * stderr, when it exits or stays silent before listening.
 */
export async function startTarget(target, root) {
  const fixture = path.join(root, 'test/fixtures/mcp/conformance-backend.mjs');
  let command;
  let pattern;
  let cleanup = () => {};
  if (target === 'gateway') {
    const cli = path.join(root, 'dist/cli.js');
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first`);
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-conformance-gateway-'));
    cleanup = () => rmSync(dir, { recursive: true, force: true });
    const config = path.join(dir, 'mcp.yaml');
    // JSON is YAML: the paths need no quoting rules of their own.
    const body = {
      servers: { conformance: { command: process.execPath, args: [fixture] } },
      defaults: { naming: { passThrough: true } },
    };
    writeFileSync(config, JSON.stringify(body, null, 2));
    command = [
      process.execPath,
      [
        cli,
        '--config',
        config,
        'gateway',
        'serve',
        '--transport',
        'http',
        '--port',
        '0',
        '--no-auth',
      ],
    ];
    pattern = GATEWAY_LISTENING;
  } else if (target === 'fixture') {
    command = [process.execPath, [fixture, '--http']];
    pattern = FIXTURE_READY;
  } else throw new Error(`unknown target ${target} (${TARGETS.join(', ')})`);

  const child = spawn(command[0], command[1], { cwd: root, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  let exit;
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      exit = signal ?? `code ${code}`;
      resolve(exit);
    });
  });
  child.stderr.setEncoding('utf8');

  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`the ${target} did not listen within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    const onData = (chunk) => {
      stderr = (stderr + chunk).slice(-20_000);
      const found = pattern.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    };
    child.stderr.on('data', onData);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`the ${target} exited (${how}) before listening:\n${stderr.trim()}`));
    });
  }).catch(async (error) => {
    await stop();
    throw error;
  });
  // Keep draining stderr (an unread pipe blocks the child), keeping the tail for a report.
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-20_000)));

  async function stop() {
    const waitExit = (ms) =>
      Promise.race([exited, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
    if (exit === undefined) {
      child.stdin.end();
      await waitExit(STOP_WAIT_MS);
    }
    if (exit === undefined) {
      child.kill('SIGTERM');
      await waitExit(STOP_WAIT_MS);
    }
    if (exit === undefined) {
      child.kill('SIGKILL');
      await exited;
    }
    cleanup();
  }

  return {
    url,
    describe: `node ${command[1].map((arg) => (path.isAbsolute(arg) ? path.relative(root, arg) : arg)).join(' ')}`,
    exited: () => exit,
    stderrTail: () => stderr.trim().split('\n').slice(-20).join('\n'),
    stop,
  };
}
