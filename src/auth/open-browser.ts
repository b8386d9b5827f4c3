/**
 * Opening the authorization URL in the user's browser, safely: only `https:` URLs, or `http:` on
 * a loopback host, without user info, are opened; anything else (`javascript:`, `file:`, `data:`,
 * other schemes, malformed text) is refused with a typed error before anything runs. The
 * platform's opener runs with `spawn` and an argument array, the normalised URL as one argument,
 * never through a shell (`xdg-open` on Linux and the BSDs, `open` on macOS, `rundll32
 * url.dll,FileProtocolHandler` on Windows, with no `cmd /c start`). Failing to open is not an
 * error for the flow (the caller prints the URL anyway): it is reported in the result.
 */
import { spawn } from 'node:child_process';
import { McpHostError } from '../errors/mcp-host-error.js';
import { isLoopbackHost } from './egress-policy.js';

export interface OpenBrowserOptions {
  /**
   * The opener and its leading arguments; the URL is appended as one more argument (the
   * platform's opener by default, see `browserCommand`).
   */
  command?: readonly [string, ...string[]];
  /** Whose opener to use when `command` is not given (`process.platform` by default). */
  platform?: NodeJS.Platform;
  /**
   * How long to wait for the opener to exit (ms, 5 s by default); one still running then (an
   * opener that stays with the browser) is left to run on its own and counts as opened.
   */
  waitMs?: number;
}

export interface OpenBrowserResult {
  /** Whether the opener ran and did not report a failure. */
  opened: boolean;
  /** What ran: the command, and its arguments with the URL last. */
  command: string;
  args: string[];
  /** Why the browser did not open (SPAWN_FAILED: the opener is missing or exited non-zero). */
  error?: McpHostError;
}

export const DEFAULT_OPEN_BROWSER_WAIT_MS = 5_000;

/** The opener of `platform`, without the URL (which goes last, as one argument). */
export function browserCommand(platform: NodeJS.Platform): readonly [string, ...string[]] {
  if (platform === 'darwin') return ['open'];
  // FileProtocolHandler hands the URL to the default browser; no cmd.exe parses it.
  if (platform === 'win32') return ['rundll32', 'url.dll,FileProtocolHandler'];
  return ['xdg-open'];
}

/**
 * The URL as it will be opened (normalised), or a typed error: EGRESS_REFUSED (`details.reason:
 * 'scheme'`) for a scheme, host or user info that is not allowed, INVALID_ARGUMENT for text that
 * is not a URL. The error never holds the URL's query.
 */
export function checkBrowserUrl(url: string | URL): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new McpHostError(
      'INVALID_ARGUMENT',
      'the URL to open in the browser is not a valid URL',
      {
        cause,
      },
    );
  }
  const refuse = (why: string): McpHostError =>
    new McpHostError('EGRESS_REFUSED', `refused to open ${why} in the browser`, {
      details: { reason: 'scheme', scheme: parsed.protocol },
    });
  if (parsed.protocol === 'http:') {
    if (!isLoopbackHost(parsed.hostname))
      throw refuse(`an http: URL for ${parsed.host} (https: only, or http: on loopback)`);
  } else if (parsed.protocol !== 'https:') {
    throw refuse(`a ${parsed.protocol} URL (https: only, or http: on loopback)`);
  }
  if (parsed.username !== '' || parsed.password !== '')
    throw refuse('a URL with user info (a name before @ can disguise the real host)');
  return parsed;
}

/**
 * Opens `url` in the browser (after `checkBrowserUrl`, which throws). Resolves once the opener
 * exited, or was left running after `waitMs`; never rejects for an opener that failed.
 */
export async function openBrowser(
  url: string | URL,
  options: OpenBrowserOptions = {},
): Promise<OpenBrowserResult> {
  const target = checkBrowserUrl(url);
  const [command, ...lead] =
    options.command ?? browserCommand(options.platform ?? process.platform);
  const args = [...lead, target.href];
  const waitMs = options.waitMs ?? DEFAULT_OPEN_BROWSER_WAIT_MS;
  const failed = (message: string, details: Record<string, unknown>, cause?: unknown) => ({
    opened: false,
    command,
    args,
    error: new McpHostError('SPAWN_FAILED', `could not open the browser: ${message}`, {
      cause,
      details: { command, ...details },
    }),
  });
  return new Promise<OpenBrowserResult>((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, args, {
        stdio: 'ignore',
        shell: false,
        windowsHide: true,
        // Its own process group: a Ctrl-C meant for the host does not reach the browser.
        detached: process.platform !== 'win32',
      });
    } catch (cause) {
      resolve(failed(`${command} could not be started`, {}, cause));
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (result: OpenBrowserResult): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(result);
    };
    child.once('error', (cause: NodeJS.ErrnoException) =>
      finish(
        failed(
          `${command} could not be started (${cause.code ?? 'error'})`,
          { errno: cause.code },
          cause,
        ),
      ),
    );
    child.once('spawn', () => {
      timer = setTimeout(() => {
        // Still running (some openers stay with the browser): leave it be.
        child.unref();
        finish({ opened: true, command, args });
      }, waitMs);
    });
    child.once('exit', (code, signal) => {
      if (code === 0) finish({ opened: true, command, args });
      else
        finish(
          failed(`${command} exited with ${code === null ? `signal ${signal}` : `code ${code}`}`, {
            exitCode: code,
            signal,
          }),
        );
    });
  });
}
