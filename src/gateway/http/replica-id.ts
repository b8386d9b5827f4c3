/**
 * The replica id of a gateway: which process of a fleet answered (`GatewayOptions.replicaId`).
 * Sent as the `mcp-host-replica` header on every response of the gateway's HTTP listener and as
 * the `replica` label of `mcp_host_gateway_replica_info` in its `/metrics`, so that an answer that came through a load
 * balancer can be traced to its replica.
 */
import { hostname } from 'node:os';
import { McpHostError } from '../../errors/mcp-host-error.js';

/** The response header that names the replica. */
export const REPLICA_HEADER = 'mcp-host-replica';

/** A replica id: 1 to 128 letters, digits, `.`, `_`, `:` or `-` (a header value and a label). */
const REPLICA_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** `<hostname>-<pid>`: unique among the processes of a fleet, stable for a process's life. */
export function defaultReplicaId(): string {
  const name =
    hostname()
      .replace(/[^A-Za-z0-9._:-]/g, '-')
      .slice(0, 100) || 'host';
  return `${name}-${process.pid}`;
}

/** The replica id given, checked (`INVALID_ARGUMENT` for one that is not), or the default. */
export function toReplicaId(given: unknown): string {
  if (given === undefined) return defaultReplicaId();
  if (typeof given !== 'string' || !REPLICA_ID.test(given))
    throw new McpHostError(
      'INVALID_ARGUMENT',
      'replicaId must be 1 to 128 letters, digits, ".", "_", ":" or "-"',
    );
  return given;
}
