import { describe, expect, it } from 'vitest';
import { McpHostError } from '../errors/mcp-host-error.js';
import {
  acceptsDuplicates,
  isAtMostOnce,
  isInterrupted,
  isSideEffectFree,
  mayResendToolCall,
  transientRetryDelay,
} from './resend-rules.js';

const status = (code: number, retryAfterMs?: number) =>
  new McpHostError('HTTP_STATUS', `HTTP ${code}`, {
    details: { status: code, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) },
  });

describe('resend rules', () => {
  it('retries side-effect-free methods after a transient status only, within the attempts', () => {
    expect(isSideEffectFree('tools/list')).toBe(true);
    expect(isSideEffectFree('tools/call')).toBe(false);
    expect(transientRetryDelay(status(503), 1, undefined, () => 0.5)).toBe(125);
    expect(transientRetryDelay(status(503), 3, undefined)).toBeUndefined();
    expect(transientRetryDelay(status(400), 1, undefined)).toBeUndefined();
    expect(transientRetryDelay(status(500, 2_000), 1, undefined)).toBe(2_000);
    expect(transientRetryDelay(status(429, 60_000), 1, undefined)).toBeUndefined();
    expect(transientRetryDelay(new Error('x'), 1, undefined)).toBeUndefined();
  });

  it('resends a tool call that never reached the server; one that may have run only when duplicates are fine', () => {
    const neverSent = new McpHostError('CONNECT_FAILED', 'refused');
    const maybeRun = new McpHostError('PROCESS_EXITED', 'died');
    expect(mayResendToolCall(neverSent, false)).toBe(true);
    expect(mayResendToolCall(maybeRun, false)).toBe(false);
    expect(mayResendToolCall(maybeRun, true)).toBe(true);
    expect(mayResendToolCall(new McpHostError('TOOL_DENIED', 'no'), true)).toBe(false);
    const annotations = { readOnlyHint: true };
    expect(acceptsDuplicates({ retry: false, trusted: false, annotations })).toBe(false);
    expect(acceptsDuplicates({ retry: false, trusted: true, annotations })).toBe(true);
    expect(acceptsDuplicates({ retry: true, trusted: false, annotations: undefined })).toBe(true);
  });

  it('re-issues an interrupted modern request unless at-most-once covers it', () => {
    expect(isInterrupted(new McpHostError('STREAM_INTERRUPTED', 'cut'))).toBe(true);
    expect(
      isInterrupted(
        new McpHostError('HTTP_REQUEST_FAILED', 'reset', { details: { maybeExecuted: true } }),
      ),
    ).toBe(true);
    expect(isInterrupted(new McpHostError('HTTP_REQUEST_FAILED', 'refused'))).toBe(false);
    expect(isAtMostOnce(true, 'tools/call', { name: 'pay' })).toBe(true);
    expect(isAtMostOnce(['pay'], 'tools/call', { name: 'read' })).toBe(false);
    expect(isAtMostOnce(true, 'tools/list', undefined)).toBe(false);
  });
});
