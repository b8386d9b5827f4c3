/**
 * `mcp-host auth login|logout|status [server]`: OAuth logins of the servers with `oauth:`, kept in
 * the state file's token store (`FileTokenStore`), so that later commands use them.
 *
 * `login` prints the authorization URL on a line of its own (so it works over SSH), tries to open
 * a browser, then takes whichever comes first: the redirect on a loopback listener (its redirect
 * URI is the one the login sends) or the redirect URL (or code) pasted on stdin; it then finishes
 * the login, connects the server and shows its status. `logout` forgets a server's tokens (the
 * client registration stays); `status` shows what is held, never a token.
 */
import { createInterface } from 'node:readline';
import type { FileTokenStore } from '../../auth/file-token-store.js';
import { gatewayClientStatePath } from '../gateway-token.js';
import type { DeviceAuthorization } from '../../auth/device-flow.js';
import { isLoopbackHost } from '../../auth/egress-policy.js';
import { startLoopbackListener, type LoopbackListener } from '../../auth/loopback-listener.js';
import { OAuthProvider } from '../../auth/oauth-provider.js';
import { openBrowser } from '../../auth/open-browser.js';
import { McpHostError, withoutServerName } from '../../errors/mcp-host-error.js';
import type { HostServerDefinition } from '../../host/server-definition.js';
import { ServerOAuth } from '../../host/server-oauth.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { serverDownError, type CliRuntime, type OpenedHost } from '../runtime.js';

export interface LoginOptions {
  /** False with `--no-browser`. */
  browser?: boolean;
  /**
   * How long to wait for the redirect (ms), or for the device approval (default: until the device
   * code expires).
   */
  waitMs?: number;
  /** `--device`: the device authorization grant (RFC 8628) instead of a browser redirect. */
  device?: boolean;
  /**
   * `--as <client>`: log in as this named client of the gateway (`gateway: clients:`), into its
   * own token store (`gatewayClientStatePath`), which `gateway serve` reads for that client.
   */
  as?: string;
}

/** How long `auth login` waits for the person by default (ms). */
const DEFAULT_LOGIN_WAIT_MS = 5 * 60_000;

export async function authLogin(
  cli: CliRuntime,
  server: string,
  options: LoginOptions = {},
): Promise<ExitCode> {
  const config = await cli.server(server);
  if (config.oauth === undefined)
    throw new CliError(
      'INVALID_ARGUMENT',
      'has no `oauth:` section in its config: there is nothing to log in to',
      { serverName: server },
    );
  const where = await loginStore(cli, options.as);
  if (options.device === true) return deviceLogin(cli, server, options.waitMs, where);
  const waitMs = options.waitMs ?? DEFAULT_LOGIN_WAIT_MS;
  const abort = new AbortController();
  cli.onClose(() => {
    abort.abort();
    return Promise.resolve();
  });
  const listener = await listen(config.oauth.redirectUri, waitMs, abort.signal);
  if (listener !== undefined) cli.onClose(() => listener.close());
  const opened = await cli.openHost({
    servers: [server],
    start: false,
    ...where,
    ...(listener === undefined ? {} : { redirectUri: { server, uri: listener.redirectUri } }),
  });
  const { host } = opened;
  const { url } = await host.startAuthorization(server, { signal: abort.signal });
  if (cli.output.json) cli.output.event({ event: 'authorization_url', server, url: url.href });
  else {
    cli.output.notice(`Open this URL to log in to '${server}' (or paste the redirect URL here):`);
    cli.output.line(url.href);
  }
  if (options.browser !== false) {
    try {
      const result = await openBrowser(url);
      if (!result.opened) cli.output.debug('could not open a browser: open the URL above');
    } catch (error) {
      cli.output.debug(`not opened in a browser: ${String(error)}`);
    }
  }
  const redirect = await firstRedirect(listener, abort, waitMs, server);
  const status = await host.completeAuthorization(server, redirect);
  const down = serverDownError(status);
  if (down !== undefined) throw down;
  const result = { server, state: status.state, tools: status.toolCount };
  cli.output.result(result, () =>
    cli.output.line(`logged in to '${server}': ${status.state} (${status.toolCount} tools)`),
  );
  return ExitCode.ok;
}

/**
 * `auth login <server> --device`: the device authorization grant (RFC 8628). Shows where to go and
 * the code (lines of their own; one `device_authorization` event with `--format json`), polls the
 * token endpoint at the server's interval until the person approves, then saves the tokens in the
 * state file, connects the server and shows its status. Ends with exit 4 when the code expires or
 * `--wait` passes first, 1 when the person denies it or the authorization server offers no device
 * grant, 130/143 on SIGINT/SIGTERM (the typed error printed first).
 */
async function deviceLogin(
  cli: CliRuntime,
  server: string,
  waitMs: number | undefined,
  where: { tokenStatePath?: string },
): Promise<ExitCode> {
  const opened = await cli.openHost({ servers: [server], start: false, ...where });
  const definition = opened.resolved.host.servers.find((d) => d.name === server);
  const store = opened.tokenStore;
  if (definition?.oauth === undefined || store === undefined)
    throw new CliError('INVALID_ARGUMENT', 'has no `oauth:` section in its config', {
      serverName: server,
    });
  // The provider the host would make for this server (same client, store and token key), so
  // the host (and every later command) finds the tokens this login saves.
  const provider = await new ServerOAuth(server, definition.transport, definition.oauth, () =>
    Promise.resolve(store),
  ).provider();
  if (!(provider instanceof OAuthProvider))
    throw new CliError('INVALID_ARGUMENT', 'OAuth is not available for this server', {
      serverName: server,
    });
  const abort = new AbortController();
  let waiting: Promise<unknown> = Promise.resolve();
  // Registered after the host's cleanups, so it runs first on SIGINT/SIGTERM: the wait ends (and
  // its error is printed) before the host and the store close.
  cli.onClose(async () => {
    abort.abort();
    await waiting;
  });
  const timeout =
    waitMs === undefined
      ? undefined
      : new CliError('REQUEST_TIMEOUT', `the device code was not approved within ${waitMs} ms`, {
          serverName: server,
          details: { kind: 'device', timeoutMs: waitMs },
        });
  let timer: NodeJS.Timeout | undefined;
  try {
    const shown = await provider.startDeviceAuthorization({ signal: abort.signal });
    showDeviceAuthorization(cli, server, shown);
    if (timeout !== undefined) timer = setTimeout(() => abort.abort(timeout), waitMs);
    const wait = provider.waitForDeviceAuthorization({ signal: abort.signal });
    waiting = wait.catch(() => undefined);
    await wait;
  } catch (error) {
    throw deviceLoginError(cli, server, error, abort.signal, timeout);
  } finally {
    clearTimeout(timer);
  }
  if (cli.output.json) cli.output.event({ event: 'approved', server });
  const status = await opened.host.restartServer(server);
  const down = serverDownError(status);
  if (down !== undefined) throw down;
  const result = { server, state: status.state, tools: status.toolCount };
  cli.output.result(result, () =>
    cli.output.line(`logged in to '${server}': ${status.state} (${status.toolCount} tools)`),
  );
  return ExitCode.ok;
}

/** Where to go and the code to enter, each on a line of its own (or one JSON event). */
function showDeviceAuthorization(
  cli: CliRuntime,
  server: string,
  shown: DeviceAuthorization,
): void {
  const expiresAt = new Date(shown.expiresAt).toISOString();
  if (cli.output.json) {
    cli.output.event({
      event: 'device_authorization',
      server,
      verificationUri: shown.verificationUri,
      verificationUriComplete: shown.verificationUriComplete ?? null,
      userCode: shown.userCode,
      expiresAt,
    });
    return;
  }
  cli.output.notice(`To log in to '${server}', open this URL on any device:`);
  cli.output.line(shown.verificationUri);
  cli.output.notice('and enter this code:');
  cli.output.line(shown.userCode);
  if (shown.verificationUriComplete !== undefined) {
    cli.output.notice('(or open this URL, which has the code in it:)');
    cli.output.line(shown.verificationUriComplete);
  }
  cli.output.notice(`waiting for the approval (the code expires at ${expiresAt})`);
}

/**
 * The error a device login ends with: the `--wait` deadline (exit 4), an expired code (exit 4),
 * an interruption (printed here, then a silent ABORTED: the signal sets the exit code), or the
 * error as it is (a denial, a server without the grant: exit 1).
 */
function deviceLoginError(
  cli: CliRuntime,
  server: string,
  error: unknown,
  signal: AbortSignal,
  timeout: CliError | undefined,
): unknown {
  if (signal.aborted) {
    if (timeout !== undefined && signal.reason === timeout) return timeout;
    cli.output.error(
      new CliError('ABORTED', 'the device login was interrupted before it was approved', {
        serverName: server,
      }),
    );
    return new CliError('ABORTED', 'interrupted', { serverName: server });
  }
  if (
    error instanceof McpHostError &&
    error.code === 'AUTH_FAILED' &&
    error.details?.error === 'expired_token'
  )
    return new CliError('AUTH_FAILED', withoutServerName(server, error.message), {
      serverName: server,
      details: error.details,
      exitCode: ExitCode.unreachable,
    });
  return error;
}

/**
 * The loopback listener for a loopback redirect URI (its port and path, a random port when it
 * names none), or undefined for another redirect URI (then only a pasted redirect URL works).
 */
async function listen(
  configured: string | undefined,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<LoopbackListener | undefined> {
  if (configured === undefined) return startLoopbackListener({ timeoutMs, signal });
  let uri: URL;
  try {
    uri = new URL(configured);
  } catch {
    return undefined;
  }
  // The one loopback rule of the auth layer; the listener binds 127.0.0.1 whatever the configured
  // loopback host, and the login sends the listener's own URI as its `redirect_uri`.
  if (uri.protocol !== 'http:' || !isLoopbackHost(uri.hostname)) return undefined;
  return startLoopbackListener({
    timeoutMs,
    signal,
    path: uri.pathname,
    ...(uri.port === '' ? {} : { port: Number(uri.port) }),
  });
}

/**
 * The redirect on the listener, or the first non-empty line pasted on stdin, whichever comes
 * first; REQUEST_TIMEOUT after `waitMs` without either. Stops reading stdin either way.
 */
async function firstRedirect(
  listener: LoopbackListener | undefined,
  abort: AbortController,
  waitMs: number,
  server: string,
): Promise<string> {
  const lines = createInterface({ input: process.stdin, terminal: false });
  let timer: NodeJS.Timeout | undefined;
  try {
    const pasted = new Promise<string>((resolve) => {
      lines.on('line', (line) => {
        if (line.trim() !== '') resolve(line.trim());
      });
    });
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new CliError('REQUEST_TIMEOUT', `no login within ${waitMs} ms`, {
              serverName: server,
              details: { kind: 'redirect', timeoutMs: waitMs },
            }),
          ),
        waitMs,
      );
    });
    const aborted = new Promise<never>((_, reject) => {
      abort.signal.addEventListener(
        'abort',
        () => reject(new CliError('ABORTED', 'interrupted', { serverName: server })),
        { once: true },
      );
    });
    const heard =
      listener === undefined
        ? []
        : [
            listener.redirect.then(
              (redirect) => redirect.href,
              (error: unknown) => {
                // The listener's own deadline or close, named after the server.
                throw error instanceof McpHostError && error.serverName === undefined
                  ? new CliError(error.code, error.message, {
                      serverName: server,
                      ...(error.details === undefined ? {} : { details: error.details }),
                    })
                  : error;
              },
            ),
          ];
    return await Promise.race([pasted, timeout, aborted, ...heard]);
  } finally {
    clearTimeout(timer);
    lines.close();
    process.stdin.pause();
    process.stdin.unref?.();
    await listener?.close();
  }
}

interface StatusRow {
  server: string;
  loggedIn: boolean;
  issuer: string | null;
  scopes: string[];
  expiresAt: string | null;
  refreshable: boolean;
}

/**
 * Where a login is kept: the state file, or with `--as <client>` that client's own (a client
 * the config's `gateway: clients:` does not name is refused, so a typo logs in nowhere).
 */
export async function loginStore(
  cli: CliRuntime,
  client: string | undefined,
): Promise<{ tokenStatePath?: string }> {
  if (client === undefined) return {};
  const { config } = await cli.loadConfig();
  const clients = Object.keys(config.gateway?.clients ?? {});
  if (!clients.includes(client))
    throw new CliError(
      'INVALID_ARGUMENT',
      `--as ${client}: the config's \`gateway: clients:\` has no client '${client}'${clients.length === 0 ? '' : ` (it has ${clients.join(', ')})`}`,
    );
  return { tokenStatePath: gatewayClientStatePath(client, cli.env) };
}

/** The OAuth servers of the config (or the one named), resolved, with the token store. */
async function oauthServers(
  cli: CliRuntime,
  server: string | undefined,
): Promise<{ opened: OpenedHost; definitions: HostServerDefinition[]; store: FileTokenStore }> {
  if (server !== undefined) {
    const config = await cli.server(server);
    if (config.oauth === undefined)
      throw new CliError('INVALID_ARGUMENT', 'has no `oauth:` section in its config', {
        serverName: server,
      });
  }
  const opened = await cli.openHost({
    start: false,
    ...(server === undefined ? {} : { servers: [server] }),
  });
  const definitions = opened.resolved.host.servers.filter(
    (definition) => definition.oauth !== undefined,
  );
  if (opened.tokenStore === undefined || definitions.length === 0)
    throw new CliError('INVALID_ARGUMENT', 'no server in the config has an `oauth:` section');
  return { opened, definitions, store: opened.tokenStore };
}

function urlOf(definition: HostServerDefinition): string | undefined {
  const transport = definition.transport as { type?: string; url?: string };
  return typeof transport === 'object' && typeof transport.url === 'string'
    ? transport.url
    : undefined;
}

export async function authStatus(cli: CliRuntime, server: string | undefined): Promise<void> {
  const { definitions, store } = await oauthServers(cli, server);
  const rows: StatusRow[] = [];
  for (const definition of definitions) {
    const url = urlOf(definition);
    const key = url === undefined ? undefined : await store.findTokenKey(url);
    const tokens = key === undefined ? undefined : await store.loadTokens(key);
    rows.push({
      server: definition.name,
      loggedIn: tokens !== undefined,
      issuer: key?.issuer ?? null,
      scopes: tokens?.scope?.split(' ').filter((scope) => scope !== '') ?? [],
      expiresAt: tokens?.expiresAt === undefined ? null : new Date(tokens.expiresAt).toISOString(),
      refreshable: tokens?.refreshToken !== undefined,
    });
  }
  cli.output.result(rows, () =>
    cli.output.table(rows, [
      { header: 'SERVER', value: (r) => r.server },
      { header: 'LOGGED IN', value: (r) => (r.loggedIn ? 'yes' : 'no') },
      { header: 'EXPIRES', value: (r) => r.expiresAt },
      { header: 'REFRESH', value: (r) => (r.loggedIn ? (r.refreshable ? 'yes' : 'no') : null) },
      { header: 'SCOPES', value: (r) => r.scopes.join(' ') },
      { header: 'ISSUER', value: (r) => r.issuer },
    ]),
  );
}

export async function authLogout(cli: CliRuntime, server: string | undefined): Promise<void> {
  const { definitions, store } = await oauthServers(cli, server);
  const rows: Array<{ server: string; loggedOut: boolean }> = [];
  for (const definition of definitions) {
    const url = urlOf(definition);
    const key = url === undefined ? undefined : await store.findTokenKey(url);
    const held = key !== undefined && (await store.loadTokens(key)) !== undefined;
    if (key !== undefined) await store.clearTokens(key);
    rows.push({ server: definition.name, loggedOut: held });
  }
  cli.output.result(rows, () => {
    for (const row of rows)
      cli.output.line(
        row.loggedOut
          ? `logged out of '${row.server}' (its tokens are forgotten)`
          : `'${row.server}': no tokens held`,
      );
  });
}
