/**
 * The examples of docs/auth.md's "Egress safety, the loopback listener and the browser" section
 * run for real against the built package (through its `mcp-host/auth` export), each in its own
 * Node process that must exit on its own. The browser example runs headless: the `xdg-open` it
 * finds on PATH is a fake browser that follows the authorization URL's redirect back to the
 * loopback listener, as a real one would after the user logged in.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  codeBlockAfter as blockAfter,
  repoRoot as root,
  startExample,
} from '../helpers/doc-examples.js';
import { leakGuard } from '../helpers/leak-guard.js';

const docs = readFileSync(`${root}docs/auth.md`, 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'mcp-host-auth-docs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const codeBlockAfter = (heading: string): string => blockAfter(docs, heading);

async function runExample(
  code: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ stdout: string; stderr: string; exitCode: number | null }> {
  await using example = startExample(code, env);
  const { code: exitCode, stdout, stderr } = await example.exit;
  return { stdout, stderr, exitCode };
}

describe('docs/auth.md: egress, loopback listener and browser', () => {
  it('the egress example refuses the metadata address in every spelling', async () => {
    expect(existsSync(`${root}dist/auth.js`), 'npm test builds dist/ before the tests').toBe(true);
    await using _guard = leakGuard();
    const { stdout, stderr, exitCode } = await runExample(
      codeBlockAfter('### Every OAuth request goes through a guarded fetch'),
    );
    expect(stderr).toBe('');
    expect(exitCode).toBe(0);
    expect(stdout.trim().split('\n')).toEqual([
      'EGRESS_REFUSED address link-local',
      'EGRESS_REFUSED address link-local',
      'EGRESS_REFUSED address loopback',
    ]);
  });

  it.runIf(process.platform === 'linux')(
    'the browser example logs in headless: the browser it opens is redirected to the listener',
    async () => {
      await using _guard = leakGuard();
      const bin = join(scratch, 'bin');
      rmSync(bin, { recursive: true, force: true });
      const seen = join(scratch, 'opened-with.json');
      const browser = [
        `#!${process.execPath}`,
        `require('node:fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify(process.argv.slice(2)));`,
        'const authorize = new URL(process.argv[2]);',
        "const back = new URL(authorize.searchParams.get('redirect_uri'));",
        "back.searchParams.set('code', 'code-from-the-fake-browser');",
        "back.searchParams.set('state', authorize.searchParams.get('state'));",
        "back.searchParams.set('iss', 'https://as.example.com');",
        'fetch(back).then((r) => r.text()).then(() => process.exit(0), () => process.exit(1));',
      ].join('\n');
      writeFileSync(join(scratch, 'xdg-open'), browser);
      chmodSync(join(scratch, 'xdg-open'), 0o755);
      const { stdout, stderr, exitCode } = await runExample(
        codeBlockAfter('### The loopback redirect listener and the browser'),
        { PATH: `${scratch}${delimiter}${process.env.PATH ?? ''}` },
      );
      expect(stderr).toBe('');
      expect(exitCode).toBe(0);
      const lines = stdout.trim().split('\n');
      expect(lines[0]).toBe('Log in at:');
      // The URL on a line of its own, exactly as the browser got it (one argument).
      const printed = lines[1]!;
      expect(JSON.parse(readFileSync(seen, 'utf8'))).toEqual([printed]);
      expect(new URL(printed).searchParams.get('redirect_uri')).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/callback$/,
      );
      expect(lines.at(-1)).toBe('authorization code received: true');
    },
  );
});
