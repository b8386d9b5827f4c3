/**
 * The README's code and the quick start run for real: the README's "Use" example (against the
 * built package, through its `exports`) and `examples/quickstart.ts` (`npm run quickstart`, against
 * the official everything server). Each runs in its own Node process, which must exit on its own
 * (a leaked handle would keep it alive) and leave no process behind.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../helpers/leak-guard.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function runTs(
  file: string,
  timeoutMs: number,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', file],
      { cwd: root, timeout: timeoutMs, env: { ...process.env, NODE_OPTIONS: '' } },
      (error, stdout, stderr) =>
        resolve({ stdout, stderr, code: error === null ? 0 : (child.exitCode ?? null) }),
    );
  });
}

/** The first ```ts block after a heading. */
function codeBlockAfter(markdown: string, heading: string): string {
  const section = markdown.slice(markdown.indexOf(heading));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (match?.[1] === undefined) throw new Error(`no ts block after ${heading}`);
  return match[1];
}

describe('documentation examples', () => {
  it("the README's Use example runs against the built package, talks to the everything server and closes", async () => {
    expect(existsSync(`${root}dist/index.js`), 'npm test builds dist/ before the tests').toBe(true);
    await using _guard = leakGuard();
    const code = codeBlockAfter(readFileSync(`${root}README.md`, 'utf8'), '## Use');
    // Inside the repository, so `mcp-host` resolves to this package through its exports.
    const file = `${root}test/.readme-example-${process.pid}.mts`;
    writeFileSync(file, code);
    try {
      const { stdout, stderr, code: exitCode } = await runTs(file, 60_000);
      expect(stderr.replace(/^npm warn .*\n/gm, '')).toBe('');
      expect(exitCode).toBe(0);
      expect(stdout).toContain('legacy 2025-11-25');
      expect(stdout).toContain('The sum of 2 and 3 is 5.');
    } finally {
      rmSync(file, { force: true });
    }
  });

  it("the README's host example runs against the built package with two official servers", async () => {
    await using _guard = leakGuard();
    const code = codeBlockAfter(readFileSync(`${root}README.md`, 'utf8'), '### Many servers');
    const file = `${root}test/.readme-host-example-${process.pid}.mts`;
    writeFileSync(file, code);
    try {
      const { stdout, stderr, code: exitCode } = await runTs(file, 60_000);
      expect(stderr.replace(/^npm warn .*\n/gm, '')).toBe('');
      expect(exitCode).toBe(0);
      expect(stdout).toContain("[ 'everything', 'memory' ] []");
      expect(stdout).toContain('true true');
      expect(stdout).toContain('Echo: hi');
      expect(stdout).toMatch(/^1$/m);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('the quick start (npm run quickstart) talks to the official everything server and closes', async () => {
    await using _guard = leakGuard();
    const { stdout, code } = await runTs('examples/quickstart.ts', 60_000);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Connected to .*everything/);
    expect(stdout).toMatch(/\d+ tools:/);
    expect(stdout).toContain('tools/call echo -> Echo: Hello from mcp-host');
    expect(stdout).toMatch(/closed in \d+ ms/);
  });
});
