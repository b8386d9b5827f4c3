import * as diagnosticsChannel from 'node:diagnostics_channel';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { staticImportGraph } from '../../../test/helpers/import-graph.js';
import { toDisposable } from '../../internal/disposable.js';
import {
  TOOL_CALL_CHANNEL_NAMES,
  createTraceChannel,
  toolCallChannels,
  traceToolCallEnd,
  traceToolCallError,
  traceToolCallStart,
  type ToolCallTrace,
} from './tracing.js';

/** Subscribes to a named channel until disposed, collecting what is published. */
function listen(name: string) {
  const messages: unknown[] = [];
  const listener = (message: unknown) => {
    messages.push(message);
  };
  diagnosticsChannel.subscribe(name, listener);
  return Object.assign(
    toDisposable(() => diagnosticsChannel.unsubscribe(name, listener)),
    { messages },
  );
}

describe('tool-call tracing', () => {
  it('costs nothing and allocates no trace when nobody listens', () => {
    expect(toolCallChannels.start.hasSubscribers).toBe(false);
    const trace = traceToolCallStart('files', 'mcp__files__read', { path: '/x' });
    expect(trace).toBeUndefined();
    traceToolCallEnd(trace, { content: [] }, 'ok');
    traceToolCallError(trace, new Error('x'), 'error', 'UNKNOWN');
  });

  it('publishes one object on start, then end, with duration and outcome', () => {
    using start = listen(TOOL_CALL_CHANNEL_NAMES.start);
    using end = listen(TOOL_CALL_CHANNEL_NAMES.end);
    const args = { path: '/x' };
    const trace = traceToolCallStart('files', 'mcp__files__read', args, 'agent-1');
    expect(trace).toBeDefined();
    expect(start.messages).toEqual([
      expect.objectContaining({ server: 'files', tool: 'mcp__files__read', caller: 'agent-1' }),
    ]);
    expect((start.messages[0] as ToolCallTrace).arguments).toBe(args);
    const result = { content: [], isError: true };
    traceToolCallEnd(trace, result, 'tool_error');
    expect(end.messages).toHaveLength(1);
    expect(end.messages[0]).toBe(start.messages[0]);
    const message = end.messages[0] as ToolCallTrace;
    expect(message.outcome).toBe('tool_error');
    expect(message.result).toBe(result);
    expect(message.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('publishes a thrown call on the error channel only', () => {
    using end = listen(TOOL_CALL_CHANNEL_NAMES.end);
    using error = listen(TOOL_CALL_CHANNEL_NAMES.error);
    const trace = traceToolCallStart('files', 'mcp__files__read', {});
    const failure = new Error('boom');
    traceToolCallError(trace, failure, 'timeout', 'REQUEST_TIMEOUT');
    expect(end.messages).toEqual([]);
    expect(error.messages).toEqual([
      expect.objectContaining({ error: failure, outcome: 'timeout', errorCode: 'REQUEST_TIMEOUT' }),
    ]);
    expect('caller' in (error.messages[0] as object)).toBe(false);
  });

  it('falls back to no-op channels where diagnostics_channel cannot be had', () => {
    for (const loader of [() => undefined, () => ({})]) {
      const channel = createTraceChannel('mcp-host:test', loader);
      expect(channel).toMatchObject({ name: 'mcp-host:test', hasSubscribers: false });
      channel.publish({});
    }
  });

  it('imports no Node module statically, so the root entry can export it', () => {
    const here = dirname(fileURLToPath(import.meta.url));
    for (const file of ['tracing.ts', 'metrics.ts', 'audit.ts', '../calls/result-budget.ts'])
      expect([...staticImportGraph(resolve(here, file)).external]).toEqual([]);
  });
});
