import { describe, expect, it } from 'vitest';
import type {
  Telemetry,
  TelemetryContext,
  TelemetryOutcome,
  TelemetryRequest,
} from '../internal/telemetry.js';
import { connect, echo } from '../../test/helpers/mcp-client-harness.js';

/** A `Telemetry` that records what it was told and injects a fixed traceparent. */
function recordingTelemetry(traceparent: string | null = '00-aa-bb-01') {
  const started: TelemetryRequest[] = [];
  const ended: Array<TelemetryOutcome | undefined> = [];
  const telemetry: Telemetry = {
    startRequest(request) {
      started.push(request);
      return {
        context: {} as TelemetryContext,
        inject(meta) {
          if (traceparent !== null) meta.traceparent = traceparent;
        },
        end(outcome) {
          ended.push(outcome);
        },
      };
    },
  };
  return { telemetry, started, ended };
}

const failing = {
  name: 'fails',
  inputSchema: { type: 'object' },
  handler: () => ({ content: [{ type: 'text' as const, text: 'no' }], isError: true }),
};

describe('McpClient with telemetry', () => {
  it.each(['legacy', 'modern'] as const)(
    '%s: each request is a CLIENT span whose traceparent rides in _meta beside the era’s keys',
    async (era) => {
      const { telemetry, started, ended } = recordingTelemetry();
      await using h = await connect({ era, tools: [echo, failing] }, { telemetry });
      await h.client.connect();
      const parent = { parent: true } as unknown as TelemetryContext;
      await h.client.callTool('echo', { word: 'secret-canary' }, { traceContext: parent });
      await h.client.callTool('fails', {});

      const call = h.fake.received.find((message) => message.method === 'tools/call')!;
      const meta = call.params!._meta as Record<string, unknown>;
      expect(meta.traceparent).toBe('00-aa-bb-01');
      if (era === 'modern')
        expect(meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
      const calls = started.filter((request) => request.method === 'tools/call');
      expect(calls[0]).toEqual({
        kind: 'client',
        method: 'tools/call',
        toolName: 'echo',
        promptName: undefined,
        serverName: 'fake',
        protocolVersion: era === 'modern' ? '2026-07-28' : '2025-11-25',
        parent,
      });
      expect(calls[1]).toMatchObject({ toolName: 'fails', parent: undefined });
      // Every request sent after connecting was traced, each ended once.
      expect(started.map((request) => request.method)).toEqual(['tools/call', 'tools/call']);
      expect(ended).toEqual([{}, { errorType: 'tool_error' }]);
      expect(JSON.stringify(started)).not.toContain('secret-canary');
    },
  );

  it('ends the span with what a failed request threw', async () => {
    const { telemetry, ended } = recordingTelemetry();
    await using h = await connect({ era: 'modern', tools: [echo] }, { telemetry });
    await h.client.connect();
    const error = await h.client.readResource('nothing://here').catch((e: unknown) => e);
    expect(ended).toEqual([{ error }]);
  });

  it('sends _meta untouched when the span injects nothing', async () => {
    const { telemetry, started } = recordingTelemetry(null);
    await using h = await connect({ era: 'legacy', tools: [echo] }, { telemetry });
    await h.client.connect();
    await h.client.callTool('echo', {});
    const call = h.fake.received.find((message) => message.method === 'tools/call')!;
    expect(call.params).not.toHaveProperty('_meta');
    expect(started).toHaveLength(1);
  });

  it.each(['legacy', 'modern'] as const)(
    '%s: without telemetry no traceparent is sent',
    async (era) => {
      await using h = await connect({ era, tools: [echo] });
      await h.client.connect();
      await h.client.callTool('echo', {});
      const call = h.fake.received.find((message) => message.method === 'tools/call')!;
      const meta = (call.params!._meta ?? {}) as Record<string, unknown>;
      expect(meta).not.toHaveProperty('traceparent');
    },
  );
});
