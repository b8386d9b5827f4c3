/**
 * Why a doctor check failed, and what to do about it: a server whose variables or inputs do not
 * resolve (`resolveFailure`), and one that would not connect (`connectFailure`: crashed on start,
 * no answer to the handshake, unreachable URL, refused credentials, a WebSocket upgrade answered
 * with an HTTP status). Every message is masked, and says its problem without the server's name
 * (the report shows it beside each finding).
 */
import type { ServerConfig } from '../../config/model.js';
import {
  McpHostError,
  ProcessExitedError,
  withoutServerName,
} from '../../errors/mcp-host-error.js';
import { maskUrl } from '../../config/expand/secrets.js';
import { redact } from '../../errors/redact.js';
import { toMcpHostError } from '../../errors/to-mcp-host-error.js';
import type { DoctorFinding } from './doctor-report.js';

export function resolveFailure(
  error: McpHostError,
): Omit<DoctorFinding, 'server' | 'durationMs' | 'transport'> {
  if (error.code === 'CONFIG_VARIABLE_UNSET') {
    const variables = (error.details?.variables as string[] | undefined) ?? [];
    const names = variables.join(', ');
    return {
      status: 'variable-unset',
      code: error.code,
      variables,
      problem: `variable${variables.length === 1 ? '' : 's'} ${names} not set (and no default)`,
      fix: `export ${variables.map((v) => `${v}=…`).join(' ')} before running, or write a default: \${${variables[0] ?? 'VAR'}:-value}`,
    };
  }
  if (error.code === 'CONFIG_INPUT_REQUIRED')
    return {
      status: 'input-required',
      code: error.code,
      problem: problemOf(error),
      fix: 'give the input in MCP_HOST_INPUTS (JSON: {"id": "value"}) or run the command on a terminal to be asked',
    };
  return {
    status: 'config-invalid',
    code: error.code,
    problem: problemOf(error),
    fix: 'correct the entry (`mcp-host config validate` lists every problem)',
  };
}

export function connectFailure(
  error: unknown,
  server: ServerConfig,
  timedOut: boolean,
  timeoutMs: number,
): Omit<DoctorFinding, 'server' | 'durationMs' | 'transport' | 'source'> {
  const e = toMcpHostError(error);
  const code = String(e.code);
  const details = e instanceof McpHostError ? e.details : undefined;
  const message = problemOf(e, server.name);
  const t = server.transport;
  if (error instanceof ProcessExitedError || code === 'PROCESS_EXITED') {
    const exited = error instanceof ProcessExitedError ? error : undefined;
    const tail = exited === undefined ? '' : lastLines(redact(exited.stderrTail), 10);
    return {
      status: 'crashed',
      code,
      problem: `exited on start${exited?.exitCode == null ? '' : ` with code ${exited.exitCode}`}${exited?.signal == null ? '' : ` (${exited.signal})`} before answering the handshake`,
      fix:
        tail === ''
          ? 'run the command by hand to see why it stops; check its arguments and env'
          : 'read its stderr above; run the command by hand to reproduce',
      ...(exited === undefined ? {} : { exitCode: exited.exitCode }),
      ...(tail === '' ? {} : { stderrTail: tail }),
    };
  }
  if (code === 'SPAWN_FAILED')
    return {
      status: 'command-not-found',
      code,
      problem: message,
      fix: 'install the command, or give its absolute path; check cwd exists and the file is executable',
    };
  if (
    code === 'CONNECT_TIMEOUT' ||
    code === 'REQUEST_TIMEOUT' ||
    (timedOut && (code === 'ABORTED' || code === 'CONNECTION_CLOSED'))
  )
    return {
      status: 'handshake-timeout',
      code,
      problem: `no answer to the handshake within ${formatMs(timeoutMs)}`,
      fix:
        t.type === 'stdio'
          ? 'check it is an MCP server speaking stdio (not waiting for a flag such as --stdio, not printing a prompt); raise --timeout if it is slow to start'
          : 'check the URL is the MCP endpoint; raise --timeout if the server is slow',
    };
  const upgradeStatus = details?.status;
  if (code === 'CONNECT_FAILED' && t.type === 'websocket' && typeof upgradeStatus === 'number')
    return {
      status: 'failed',
      code,
      problem: `the server answered the WebSocket upgrade with HTTP ${upgradeStatus}${upgradeHint(upgradeStatus)}`,
      fix:
        upgradeStatus === 404
          ? 'check the path in url: it must be the MCP WebSocket endpoint (it answered, so the host and port are right)'
          : upgradeStatus === 401 || upgradeStatus === 403
            ? 'add an Authorization header (headers: { Authorization: Bearer ${TOKEN} })'
            : 'check the url is an MCP WebSocket endpoint (ws:// or wss://, the right path)',
    };
  if (code === 'CONNECT_FAILED') {
    const errno = (details?.errno as string | undefined) ?? causeCode(e);
    const dns = errno === 'ENOTFOUND' || errno === 'EAI_AGAIN';
    return {
      status: 'unreachable',
      code,
      problem: dns
        ? `host name of ${maskUrl(t.type === 'stdio' ? '' : t.url)} does not resolve (${errno})`
        : `cannot connect to ${maskUrl(t.type === 'stdio' ? '' : t.url)}${errno === undefined ? '' : ` (${errno})`}`,
      fix: dns
        ? 'check the host name in url, and the network or VPN'
        : 'start the server, or check the host, port and scheme in url (and any proxy)',
    };
  }
  if (code === 'HTTP_STATUS') {
    const status = details?.status as number | undefined;
    if (status === 401 || status === 403)
      return {
        status: 'needs-auth',
        code,
        problem: `the server refused the credentials (HTTP ${status})`,
        fix:
          server.oauth === undefined
            ? 'add an Authorization header (headers: { Authorization: Bearer ${TOKEN} }) or oauth settings'
            : 'sign in again: the OAuth token is missing or expired',
      };
    return {
      status: 'failed',
      code,
      problem: message,
      fix: 'check the URL is the MCP endpoint (often ending in /mcp)',
    };
  }
  return { status: 'failed', code, problem: message, fix: 'see the message; --verbose logs more' };
}

/** What an HTTP status answering a WebSocket upgrade most likely means. */
function upgradeHint(status: number): string {
  if (status === 404) return ' (not found): wrong path?';
  if (status === 401 || status === 403) return ': the credentials were refused';
  if (status >= 200 && status < 300) return ': not a WebSocket endpoint (a plain HTTP one?)';
  return '';
}

/** The error's message, masked, without the name of the server it is about. */
function problemOf(
  error: { message: string; serverName: string | undefined },
  serverName = error.serverName,
): string {
  const message = redact(error.message);
  return serverName === undefined ? message : withoutServerName(serverName, message);
}

function causeCode(error: Error): string | undefined {
  let cause: unknown = error.cause;
  for (let i = 0; i < 5 && cause !== undefined && cause !== null; i++) {
    const c = cause as { code?: unknown; cause?: unknown };
    if (typeof c.code === 'string' && /^E[A-Z_]+$/.test(c.code)) return c.code;
    cause = c.cause;
  }
  return undefined;
}

function lastLines(text: string, count: number): string {
  return text.trimEnd().split(/\r?\n/).slice(-count).join('\n');
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
