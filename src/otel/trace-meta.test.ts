import { ROOT_CONTEXT, trace, TraceFlags, createTraceState } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import {
  extractTraceMeta,
  formatTraceparent,
  injectTraceMeta,
  parseTraceparent,
} from './trace-meta.js';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';

describe('W3C trace context in _meta (no propagator registered)', () => {
  it('writes traceparent and tracestate, unprefixed', () => {
    const context = trace.setSpanContext(ROOT_CONTEXT, {
      traceId,
      spanId,
      traceFlags: TraceFlags.SAMPLED,
      traceState: createTraceState('rojo=00f067aa0ba902b7,congo=t61rcWkgMzE'),
    });
    const meta: Record<string, unknown> = { progressToken: 1 };
    injectTraceMeta(context, meta);
    expect(meta).toEqual({
      progressToken: 1,
      traceparent: `00-${traceId}-${spanId}-01`,
      tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE',
    });
  });

  it('writes nothing for a context without a valid span', () => {
    const meta: Record<string, unknown> = {};
    injectTraceMeta(ROOT_CONTEXT, meta);
    expect(meta).toEqual({});
  });

  it('reads back what it writes, as a remote parent', () => {
    const parsed = parseTraceparent(`00-${traceId}-${spanId}-00`, 'a=1');
    expect(parsed).toMatchObject({ traceId, spanId, traceFlags: 0, isRemote: true });
    expect(parsed?.traceState?.get('a')).toBe('1');
    expect(formatTraceparent(parsed!)).toBe(`00-${traceId}-${spanId}-00`);
    const context = extractTraceMeta({ traceparent: `00-${traceId}-${spanId}-01` });
    expect(trace.getSpanContext(context!)).toMatchObject({ traceId, spanId, isRemote: true });
  });

  it.each([
    ['not a string', 42],
    ['garbage', 'hello'],
    ['upper case', `00-${traceId.toUpperCase()}-${spanId}-01`],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${spanId}-01`],
    ['all-zero span id', `00-${traceId}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${traceId}-${spanId}-01`],
    ['version 00 with a fifth field', `00-${traceId}-${spanId}-01-extra`],
  ])('ignores a malformed traceparent (%s)', (_what, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
    expect(extractTraceMeta({ traceparent: value })).toBeUndefined();
  });

  it('accepts a later version with more fields, and ignores an oversized tracestate', () => {
    const parsed = parseTraceparent(`01-${traceId}-${spanId}-01-more`, `a=${'x'.repeat(600)}`);
    expect(parsed).toMatchObject({ traceId, spanId });
    expect(parsed?.traceState).toBeUndefined();
  });
});
