/**
 * The diagnostics a reload reports: a failure of one server as a diagnostic (its code as the
 * kind), a server applied but not connected, a change of host-wide settings, and the
 * `file:line:column: message` that names a refused reload.
 */
import { aboutServer, McpHostError } from '../../errors/mcp-host-error.js';
import { toMcpHostError } from '../../errors/to-mcp-host-error.js';
import type { ServerState, ServerStatus } from '../../host/slot/server-status.js';
import type { ConfigDiagnostic, ServerConfig } from '../model.js';

/**
 * A warning when a server whose config was applied did not connect (its status says why; the
 * host's supervision retries what can be retried).
 */
export function notConnected(status: ServerStatus, server: ServerConfig): ConfigDiagnostic[] {
  if (!DOWN_STATES.has(status.state)) return [];
  const why = status.lastError === undefined ? '' : `: ${status.lastError.message}`;
  return [
    {
      severity: 'warning',
      kind: 'not-connected',
      message: aboutServer(server.name, `not connected (${status.state})${why}`),
      server: server.name,
      location: server.source,
    },
  ];
}

const DOWN_STATES: ReadonlySet<ServerState> = new Set<ServerState>([
  'restarting',
  'needs_auth',
  'failed',
  'crash_loop',
]);

const KIND_OF_CODE: Readonly<Record<string, string>> = {
  CONFIG_VARIABLE_UNSET: 'unset-variable',
  CONFIG_INPUT_REQUIRED: 'input-required',
  CONFIG_INVALID: 'invalid-config',
};

function isDiagnostic(value: unknown): value is ConfigDiagnostic {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof Error) &&
    ((value as ConfigDiagnostic).severity === 'error' ||
      (value as ConfigDiagnostic).severity === 'warning') &&
    typeof (value as ConfigDiagnostic).message === 'string'
  );
}

export function diagnosticOf(
  error: unknown,
  name: string,
  server: ServerConfig | undefined,
): ConfigDiagnostic {
  if (isDiagnostic(error)) return { ...error, server: error.server ?? name };
  const failure = toMcpHostError(error, { serverName: name });
  const code = failure instanceof McpHostError ? failure.code : 'JSONRPC';
  return {
    severity: 'error',
    kind: KIND_OF_CODE[code] ?? code.toLowerCase().replaceAll('_', '-'),
    message: failure.message,
    server: name,
    ...(server === undefined ? {} : { location: server.source }),
  };
}

/** `file:line:column: message` of a diagnostic. */
export function locatedMessage(diagnostic: ConfigDiagnostic): string {
  const location = diagnostic.location;
  if (location === undefined) return diagnostic.message;
  const position = location.line === undefined ? '' : `:${location.line}:${location.column ?? 1}`;
  return `${location.file}${position}: ${diagnostic.message}`;
}

export function describeError(error: unknown): string {
  return toMcpHostError(error).message;
}

/** Host-wide settings cannot change on a running host: a warning when they did. */
export const RESTART_REQUIRED: ConfigDiagnostic = {
  severity: 'warning',
  kind: 'restart-required',
  message:
    'host-wide settings (restart, health, naming, maxResultBytes, pins, views) changed: they take effect when the host is next started',
};
