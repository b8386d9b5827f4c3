import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { JsonRpcError } from './json-rpc-error.js';
import { McpHostError, ProcessExitedError, withoutServerName } from './mcp-host-error.js';
import { addSecret } from './redact.js';
import { errorCodes } from './code-docs.js';
import { isErrorCode, type ErrorCode } from './codes.js';
import { toMcpHostError } from './to-mcp-host-error.js';

const docs = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const documented = [...docs.matchAll(/^\|\s*`([A-Z_]+)`\s*\|\s*(yes|no)\s*\|/gm)].map(
  (m) => [m[1], m[2] === 'yes'] as const,
);

describe('error codes', () => {
  const codes = Object.keys(errorCodes) as ErrorCode[];

  it('docs/errors.md lists exactly the codes of the closed list, with the same permanence', () => {
    expect(documented.map(([code]) => code)).toEqual(codes);
    for (const [code, permanent] of documented)
      expect(errorCodes[code as ErrorCode].permanent).toBe(permanent);
  });

  it.each(codes)('%s makes a well-formed, redacted, serialisable error', (code) => {
    using _secret = addSecret('canary-secret-4711');
    const cause = new Error('underlying canary-secret-4711');
    const error = new McpHostError(code, `server 'fs': failed with canary-secret-4711`, {
      serverName: 'fs',
      method: 'tools/call',
      tool: 'read',
      requestId: 7,
      details: { note: 'token=canary-secret-4711' },
      cause,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe(code);
    expect(isErrorCode(error.code)).toBe(true);
    expect(error.permanent).toBe(errorCodes[code].permanent);
    expect(error.serverName).toBe('fs');
    expect(error.cause).toBe(cause);
    const json = JSON.stringify(error);
    const shown = inspect(error, { depth: 5 });
    for (const text of [error.message, error.stack ?? '', json, shown])
      expect(text).not.toContain('canary-secret-4711');
    expect(JSON.parse(json)).toMatchObject({
      code,
      serverName: 'fs',
      method: 'tools/call',
      tool: 'read',
      requestId: 7,
    });
    expect(error.message).toContain("server 'fs'");
  });
});

describe('McpHostError', () => {
  it('bounds its message to 1 KiB', () => {
    const error = new McpHostError('INTERNAL', 'x'.repeat(100_000));
    expect(error.message.length).toBeLessThanOrEqual(1024);
  });

  it('rejects codes outside the closed list at the type level', () => {
    // @ts-expect-error: not a code of the closed list
    const error = new McpHostError('NOPE', 'x');
    expect(isErrorCode(error.code)).toBe(false);
  });

  it('names its server once, and withoutServerName takes the name off for a place that shows it', () => {
    const error = new McpHostError('SPAWN_FAILED', 'no such command', { serverName: 'fs' });
    expect(error.message).toBe("server 'fs': no such command");
    expect(withoutServerName('fs', error.message)).toBe('no such command');
    expect(withoutServerName('other', error.message)).toBe("server 'fs': no such command");
    expect(withoutServerName('fs', 'no server named')).toBe('no server named');
  });
});

describe('ProcessExitedError', () => {
  it('carries exit code, signal and a redacted stderr tail', () => {
    const error = new ProcessExitedError("server 'x': process exited with code 3", {
      serverName: 'x',
      exitCode: 3,
      signal: null,
      stderrTail: 'boom\nAuthorization: Bearer abcdefghijklmnop\n',
    });
    expect(error.code).toBe('PROCESS_EXITED');
    expect(error).toBeInstanceOf(McpHostError);
    expect(error.exitCode).toBe(3);
    expect(error.stderrTail).toContain('boom');
    expect(error.stderrTail).not.toContain('abcdefghijklmnop');
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({
      code: 'PROCESS_EXITED',
      exitCode: 3,
      signal: null,
    });
  });
});

describe('JsonRpcError', () => {
  it('keeps the wire fields and redacts its message and data in dumps', () => {
    using _secret = addSecret('wire-secret-0815');
    const error = new JsonRpcError(-32602, 'bad wire-secret-0815', {
      data: { echoed: 'wire-secret-0815' },
      serverName: 's',
      method: 'tools/call',
    });
    expect(error.code).toBe(-32602);
    expect(error.toWire()).toEqual({
      code: -32602,
      message: 'bad <masked>',
      data: { echoed: 'wire-secret-0815' },
    });
    expect(JSON.stringify(error)).not.toContain('wire-secret-0815');
    expect(inspect(error)).not.toContain('wire-secret-0815');
  });
});

describe('toMcpHostError', () => {
  it('returns our errors unchanged and wraps anything else as INTERNAL', () => {
    const ours = new McpHostError('ABORTED', 'x');
    const wire = new JsonRpcError(-32601, 'nope');
    expect(toMcpHostError(ours)).toBe(ours);
    expect(toMcpHostError(wire)).toBe(wire);
    const wrapped = toMcpHostError(new TypeError('bad'), { serverName: 'a', method: 'm' });
    expect(wrapped).toBeInstanceOf(McpHostError);
    expect(wrapped).toMatchObject({ code: 'INTERNAL', serverName: 'a', method: 'm' });
    expect(wrapped.message).toBe("server 'a': bad");
    expect(toMcpHostError('text').message).toBe('text');
  });
});
