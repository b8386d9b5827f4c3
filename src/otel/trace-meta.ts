/**
 * W3C trace context in a request's `_meta`, as the MCP spec's SEP-414 and OpenTelemetry's MCP
 * conventions put it: the unprefixed keys `traceparent` and `tracestate` (and `baggage`, which the
 * configured propagator writes and reads when it knows it). The configured (global) propagator
 * goes first, so an application's propagators apply; W3C trace context is written and read here
 * too when it did not, so that the trace crosses even where no propagator was registered.
 */
import {
  createTraceState,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type Context,
  type SpanContext,
} from '@opentelemetry/api';

const TRACEPARENT = 'traceparent';
const TRACESTATE = 'tracestate';
/** The W3C limit on `tracestate` that a receiver must accept; longer ones are ignored here. */
const MAX_TRACESTATE_CHARS = 512;
const TRACEPARENT_FORMAT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** Writes the trace context of `context` into `meta`. */
export function injectTraceMeta(context: Context, meta: Record<string, unknown>): void {
  propagation.inject(context, meta);
  if (typeof meta[TRACEPARENT] === 'string') return;
  const spanContext = trace.getSpanContext(context);
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return;
  meta[TRACEPARENT] = formatTraceparent(spanContext);
  const state = spanContext.traceState?.serialize();
  if (state !== undefined && state !== '') meta[TRACESTATE] = state;
}

/**
 * A context whose span is the remote parent `meta` names, or undefined when it names none (or
 * names it malformed).
 */
export function extractTraceMeta(meta: Readonly<Record<string, unknown>>): Context | undefined {
  const extracted = propagation.extract(ROOT_CONTEXT, meta);
  const found = trace.getSpanContext(extracted);
  if (found !== undefined && isSpanContextValid(found)) return extracted;
  const remote = parseTraceparent(meta[TRACEPARENT], meta[TRACESTATE]);
  return remote === undefined ? undefined : trace.setSpanContext(extracted, remote);
}

/** `00-<trace id>-<span id>-<flags>`. */
export function formatTraceparent(spanContext: SpanContext): string {
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/** A remote span context from a `traceparent` (and `tracestate`), or undefined when invalid. */
export function parseTraceparent(
  traceparent: unknown,
  tracestate?: unknown,
): SpanContext | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const match = TRACEPARENT_FORMAT.exec(traceparent.trim());
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  // Version ff is invalid; version 00 has exactly four fields (later versions may add some).
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  const spanContext: SpanContext = {
    traceId: traceId!,
    spanId: spanId!,
    traceFlags: Number.parseInt(flags!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  if (!isSpanContextValid(spanContext)) return undefined;
  if (typeof tracestate === 'string' && tracestate.length <= MAX_TRACESTATE_CHARS)
    spanContext.traceState = createTraceState(tracestate);
  return spanContext;
}
