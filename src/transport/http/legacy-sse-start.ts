/** What the legacy HTTP+SSE transport's `start()` decides: the endpoint URL, and failures. */
import { preview } from '../../errors/redact.js';
import { type ErrorCode } from '../../errors/codes.js';
import { classifyFetchFailure } from './fetch-errors.js';

/** A failure of `start()`, before the transport prefixes the server's name. */
export interface StartFailure {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The URL an `endpoint` event names, resolved against the SSE URL; a failure unless it is a URL
 * on the SSE URL's own origin (so headers and credentials never go anywhere else).
 */
export function resolveEndpoint(data: string, sseUrl: URL): URL | StartFailure {
  let endpoint: URL;
  try {
    if (data.trim() === '') throw new Error('empty');
    endpoint = new URL(data.trim(), sseUrl);
  } catch (error) {
    return {
      code: 'PROTOCOL_VIOLATION',
      message: `the endpoint event is not a URL: ${preview(data, 80)}`,
      cause: error,
    };
  }
  if (endpoint.origin !== sseUrl.origin) {
    return {
      code: 'PROTOCOL_VIOLATION',
      message: `the endpoint event names another origin (${endpoint.origin}); messages go to ${sseUrl.origin} only`,
      details: { endpointOrigin: endpoint.origin },
    };
  }
  return endpoint;
}

/**
 * What a failed fetch during `start()` means: before the endpoint event nothing is connected
 * yet, so a timeout is CONNECT_TIMEOUT and anything else that broke is CONNECT_FAILED.
 */
export function startFetchFailure(
  error: unknown,
  url: URL,
  limits: { connectTimeoutMs: number; headersTimeoutMs: number },
): StartFailure {
  const failure = classifyFetchFailure(error, url, limits);
  const code =
    failure.code === 'CONNECT_TIMEOUT' || failure.code === 'REQUEST_TIMEOUT'
      ? 'CONNECT_TIMEOUT'
      : 'CONNECT_FAILED';
  return { code, message: failure.message, details: failure.details, cause: error };
}
