import { describe, expect, it } from 'vitest';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { diffToolDefinitions } from './tool-diff.js';
import { quarantinedError } from './quarantined-error.js';
import { alerts, forecast, variant } from './tool-pins-test-helpers.js';

describe('quarantinedError', () => {
  it('is a permanent TOOL_QUARANTINED naming server and tool, with the diff in details', () => {
    const changed = variant(forecast, (t) => (t.description = 'changed'));
    const diff = diffToolDefinitions(forecast, changed);
    const error = quarantinedError('weather', 'forecast', diff);
    expect(error).toBeInstanceOf(McpHostError);
    expect(error).toMatchObject({
      code: 'TOOL_QUARANTINED',
      permanent: true,
      serverName: 'weather',
      tool: 'forecast',
      details: {
        reason: 'changed',
        summary: 'description changed',
        changes: diff.changes,
        truncated: false,
      },
    });
    expect(error.message).toBe(
      "server 'weather': tool 'forecast' is quarantined: its definition changed since it was pinned (description changed); it cannot be called until the change is approved",
    );
    expect(
      quarantinedError('w', 't', diffToolDefinitions(undefined, alerts), 'new').message,
    ).toContain('it is new and held for approval');
    const invalid = quarantinedError(
      'w',
      't',
      { changes: [], truncated: false, summary: 'x' },
      'invalid',
    );
    expect(invalid.message).toContain('until the server lists a definition that can be pinned');
    expect(invalid.details).toMatchObject({ reason: 'invalid', changes: [] });
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ code: 'TOOL_QUARANTINED' });
  });
});
