import type { Tracer, TracerProvider } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { openTelemetry } from './open-telemetry.js';

describe('openTelemetry', () => {
  it('never fails a request: a tracer that throws traces nothing', () => {
    const tracerProvider: TracerProvider = {
      getTracer: () =>
        ({
          startSpan: () => {
            throw new Error('broken tracer');
          },
        }) as unknown as Tracer,
    };
    const telemetry = openTelemetry({ tracerProvider });
    expect(telemetry.startRequest({ kind: 'client', method: 'tools/call' })).toBeUndefined();
  });

  it('uses the global providers by default (no-op ones when no SDK is registered)', () => {
    const span = openTelemetry().startRequest({ kind: 'server', method: 'ping', meta: {} });
    expect(span).toBeDefined();
    const meta: Record<string, unknown> = {};
    span!.inject(meta);
    // The no-op tracer's spans have an invalid context: nothing to propagate.
    expect(meta).toEqual({});
    span!.end({ error: new Error('not recorded anywhere') });
    span!.end();
  });
});
