import { describe, expect, it } from 'vitest';
import { toModelError } from '../../agents/model-result.js';
import { McpHostError } from '../../errors/mcp-host-error.js';
import {
  agentEventJson,
  formatAgentEvent,
  formatDuration,
  type ToolLabel,
} from './agent-events.js';

const label: ToolLabel = (name) =>
  name === 'mcp__fs__read' ? { server: 'fs', tool: 'read' } : { tool: name };

const refused = toModelError(
  new McpHostError('TOOL_DENIED', "tool 'read' was refused: not approved", { serverName: 'fs' }),
);

describe('agent events', () => {
  it('a person sees server/tool, the arguments on one line, the duration and the error', () => {
    expect(
      formatAgentEvent(
        {
          type: 'tool-call-started',
          step: 1,
          id: 'c1',
          name: 'mcp__fs__read',
          args: '{"path":"/a\\nb"}',
        },
        label,
      ),
    ).toBe('→ fs/read {"path":"/a\\nb"}');
    expect(
      formatAgentEvent(
        { type: 'tool-call-started', step: 1, id: 'c2', name: 'search_tools', args: {} },
        label,
      ),
    ).toBe('→ search_tools');
    expect(
      formatAgentEvent(
        {
          type: 'tool-call-finished',
          step: 1,
          id: 'c1',
          name: 'mcp__fs__read',
          result: refused,
          durationMs: 1234,
        },
        label,
      ),
    ).toBe("✗ fs/read 1.2 s: TOOL_DENIED: server 'fs': tool 'read' was refused: not approved");
    expect(formatAgentEvent({ type: 'step-start', step: 1 }, label)).toBeUndefined();
  });

  it('the JSON form is plain data: arguments parsed, the error as { code, message, server }', () => {
    const json = agentEventJson(
      {
        type: 'tool-call-finished',
        step: 2,
        id: 'c1',
        name: 'mcp__fs__read',
        result: refused,
        durationMs: 3.6,
      },
      label,
    );
    expect(JSON.parse(JSON.stringify(json))).toEqual({
      type: 'tool-call-finished',
      step: 2,
      id: 'c1',
      name: 'mcp__fs__read',
      server: 'fs',
      tool: 'read',
      durationMs: 4,
      isError: true,
      text: refused.text,
      error: {
        code: 'TOOL_DENIED',
        message: "server 'fs': tool 'read' was refused: not approved",
        server: 'fs',
      },
    });
    expect(
      agentEventJson(
        { type: 'tool-call-started', step: 1, id: 'c', name: 'x', args: 'not json' },
        label,
      ),
    ).toMatchObject({ server: null, tool: 'x', args: 'not json' });
    expect(
      agentEventJson(
        {
          type: 'done',
          result: {
            text: '',
            messages: [],
            steps: 1,
            usage: { inputTokens: 0, outputTokens: 0 },
            stopReason: 'final',
          },
        },
        label,
      ),
    ).toBeUndefined();
  });

  it('durations read at a glance', () => {
    expect(formatDuration(12.4)).toBe('12 ms');
    expect(formatDuration(1500)).toBe('1.5 s');
    expect(formatDuration(75_000)).toBe('75 s');
  });
});
