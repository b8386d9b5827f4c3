import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { browserCommand, openBrowser } from './open-browser.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-host-open-browser-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;

/**
 * A fake opener: a Node process that writes the arguments it got (after the output file) to a
 * file, as JSON, and exits with `exitCode`.
 */
function fakeOpener(exitCode = 0): {
  command: [string, ...string[]];
  received(): string[] | undefined;
} {
  const out = join(dir, `argv-${files++}.json`);
  const code = `require('node:fs').writeFileSync(process.argv[1], JSON.stringify(process.argv.slice(2))); process.exit(${exitCode})`;
  return {
    command: [process.execPath, '-e', code, out],
    received: () =>
      existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as string[]) : undefined,
  };
}

describe('openBrowser', () => {
  it('passes the URL as exactly one argument, with no shell to interpret it', async () => {
    await using _guard = leakGuard();
    const marker = join(dir, 'pwned');
    const url = `https://as.example/authorize?client_id=a&state=$(touch ${marker})&x="q";y|z&redirect_uri=http%3A%2F%2F127.0.0.1%3A5%2Fcb\`id\``;
    const opener = fakeOpener();
    const result = await openBrowser(url, { command: opener.command });
    expect(result.opened).toBe(true);
    expect(result.error).toBeUndefined();
    const href = new URL(url).href;
    expect(opener.received()).toEqual([href]);
    expect(result.args.at(-1)).toBe(href);
    expect(existsSync(marker)).toBe(false);
  });

  it('opens http: only on a loopback host', async () => {
    await using _guard = leakGuard();
    for (const url of ['http://127.0.0.1:8123/cb', 'http://localhost/cb', 'http://[::1]:9/cb']) {
      const opener = fakeOpener();
      expect((await openBrowser(url, { command: opener.command })).opened, url).toBe(true);
      expect(opener.received()).toEqual([new URL(url).href]);
    }
  });

  it('refuses javascript:, file:, data: and other URLs before anything runs', async () => {
    await using _guard = leakGuard();
    const opener = fakeOpener();
    const refused = [
      'javascript:alert(document.cookie)',
      'JavaScript:alert(1)',
      'file:///etc/passwd',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'ftp://as.example/x',
      'http://as.example/authorize',
      'http://10.0.0.1/authorize',
      'https://accounts.example@evil.example/authorize',
    ];
    for (const url of refused) {
      const error = await openBrowser(url, { command: opener.command }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, url).toBeInstanceOf(McpHostError);
      expect((error as McpHostError).code, url).toBe('EGRESS_REFUSED');
      expect((error as McpHostError).details).toMatchObject({ reason: 'scheme' });
      expect(inspect(error)).not.toContain('document.cookie');
    }
    for (const text of ['not a url', '', '//as.example/x']) {
      await expect(openBrowser(text, { command: opener.command })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
      });
    }
    expect(opener.received()).toBeUndefined();
  });

  it('reports an opener that is missing or fails, without throwing', async () => {
    await using _guard = leakGuard();
    const missing = await openBrowser('https://as.example/authorize', {
      command: [join(dir, 'no-such-opener')],
    });
    expect(missing.opened).toBe(false);
    expect(missing.error?.code).toBe('SPAWN_FAILED');
    expect(missing.error?.details).toMatchObject({ errno: 'ENOENT' });
    const opener = fakeOpener(3);
    const failing = await openBrowser('https://as.example/authorize', { command: opener.command });
    expect(failing.opened).toBe(false);
    expect(failing.error?.details).toMatchObject({ exitCode: 3 });
  });

  it('uses each platform’s opener with an argument array, never cmd /c start', () => {
    expect(browserCommand('linux')).toEqual(['xdg-open']);
    expect(browserCommand('freebsd')).toEqual(['xdg-open']);
    expect(browserCommand('darwin')).toEqual(['open']);
    expect(browserCommand('win32')).toEqual(['rundll32', 'url.dll,FileProtocolHandler']);
  });
});
