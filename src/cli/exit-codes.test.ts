import { describe, expect, it } from 'vitest';
import { JsonRpcError } from '../errors/json-rpc-error.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { type ErrorCode } from '../errors/codes.js';
import {
  CliError,
  errorJsonOf,
  errorTextOf,
  ExitCode,
  exitCodeOf,
  usageError,
} from './exit-codes.js';

describe('exit codes', () => {
  it.each<[ErrorCode, ExitCode]>([
    ['CONFIG_INVALID', 1],
    ['CONFIG_VARIABLE_UNSET', 1],
    ['INVALID_ARGUMENT', 1],
    ['CONFIG_READ_ONLY', 1],
    ['CONFIG_INPUT_REQUIRED', 3],
    ['SPAWN_FAILED', 4],
    ['CONNECT_FAILED', 4],
    ['CONNECT_TIMEOUT', 4],
    ['REQUEST_TIMEOUT', 4],
    ['PROCESS_EXITED', 4],
    ['SERVER_UNAVAILABLE', 4],
    ['STREAM_INTERRUPTED', 4],
    ['TOOL_NOT_FOUND', 5],
    ['TOOL_DENIED', 5],
    ['TOOL_QUARANTINED', 5],
    ['TOOL_ERROR', 5],
    ['INTERNAL', 1],
  ])('%s exits %d (a CliError of that code too)', (code, exit) => {
    expect(exitCodeOf(new McpHostError(code, 'x'))).toBe(exit);
    expect(exitCodeOf(new CliError(code, 'x'))).toBe(exit);
  });

  it('HTTP 401/403 and a needs_auth server are auth required (3); other statuses unreachable (4)', () => {
    const status = (s: number) => new McpHostError('HTTP_STATUS', 'x', { details: { status: s } });
    expect(exitCodeOf(status(401))).toBe(3);
    expect(exitCodeOf(status(403))).toBe(3);
    expect(exitCodeOf(status(502))).toBe(4);
    expect(
      exitCodeOf(new McpHostError('SERVER_UNAVAILABLE', 'x', { details: { state: 'needs_auth' } })),
    ).toBe(3);
  });

  it('a server error answer is a tool error (5), named JSONRPC_<code>; a CliError keeps its own', () => {
    const answer = new JsonRpcError(-32602, 'unknown resource', { serverName: 's' });
    expect(exitCodeOf(answer)).toBe(5);
    expect(errorJsonOf(answer)).toEqual({
      code: 'JSONRPC_-32602',
      message: 'unknown resource',
      server: 's',
    });
    expect(exitCodeOf(new CliError('INTERNAL', 'y', { exitCode: ExitCode.unreachable }))).toBe(4);
    expect(exitCodeOf(new Error('plain'))).toBe(1);
  });

  it('a CliError is an McpHostError of the closed list that names its server once', () => {
    const error = new CliError('TOOL_ERROR', "tool 'x' returned an error", { serverName: 's' });
    expect(error).toBeInstanceOf(McpHostError);
    expect(errorJsonOf(error)).toEqual({
      code: 'TOOL_ERROR',
      message: "server 's': tool 'x' returned an error",
      server: 's',
    });
    expect(errorTextOf(error)).toBe("server 's': tool 'x' returned an error");
    expect(errorTextOf(new JsonRpcError(-32602, 'unknown resource', { serverName: 's' }))).toBe(
      "server 's': unknown resource",
    );
    expect(errorJsonOf(usageError('bad option'))).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'bad option',
      server: null,
    });
  });
});
