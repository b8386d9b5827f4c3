import { McpHostError } from '../errors/mcp-host-error.js';

/**
 * The statuses that mean "this server does not speak that transport here": per the Streamable
 * HTTP backwards-compatibility rules, a POST refused with a 4xx sends the client to the legacy
 * HTTP+SSE transport. 401 and 403 are about credentials, never about the transport, so they are
 * left out, and so are statuses that say the request was understood (409, 413, 429, …).
 */
export const TRANSPORT_REJECTION_STATUSES: readonly number[] = [400, 404, 405];

/** True for an HTTP_STATUS failure whose status means the server refused the transport itself. */
export function isTransportRejection(error: unknown): error is McpHostError {
  if (!(error instanceof McpHostError) || error.code !== 'HTTP_STATUS') return false;
  const status = error.details?.status;
  return typeof status === 'number' && TRANSPORT_REJECTION_STATUSES.includes(status);
}
