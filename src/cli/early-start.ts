/**
 * The command line's head start: the first stdio servers a command connects are spawned as soon
 * as the config is resolved, and the host's modules load while they start. A server written for
 * Node spends tens of milliseconds starting up; this way that time overlaps the host's own instead
 * of following it. Each early transport reaches the host through its server's transport factory,
 * once: any later connect (a retry, the era fallback) builds a fresh one from the definition.
 */
import type { HostServerDefinition } from '../host/server-definition.js';
import { silentLogger } from '../internal/logger.js';
import type { Transport } from '../jsonrpc/transport.js';
import { createTransport } from '../transport/create-transport.js';
import { HeldTransport } from '../transport/held-transport.js';

export interface EarlyStart {
  /** The definitions to give the host: the early servers' with a factory that hands theirs over. */
  servers: HostServerDefinition[];
  /** Closes the early transports the host never took (idempotent; the host closes the others). */
  close(): Promise<void>;
}

/**
 * Starts the transports of those of the first `count` enabled servers that run over stdio (the
 * servers a command connecting `count` at a time connects first). Spawning is not awaited here: a spawn that fails
 * fails the connect that takes it over, with the same error as without a head start.
 */
export function startEarly(servers: readonly HostServerDefinition[], count: number): EarlyStart {
  const early: HeldTransport[] = [];
  let first = 0;
  const definitions = servers.map((server) => {
    if (server.enabled === false || first++ >= count) return server;
    const transport = server.transport;
    if (typeof transport === 'function' || transport.type !== 'stdio') return server;
    const options = { serverName: server.name, logger: server.client?.logger ?? silentLogger };
    const held = new HeldTransport(createTransport(transport, options), options);
    early.push(held);
    let handed = false;
    const factory = (): Transport | Promise<Transport> => {
      if (handed) return createTransport(transport, options);
      handed = true;
      return held;
    };
    return { ...server, transport: factory };
  });
  return {
    servers: definitions,
    close: async () => {
      await Promise.all(early.map((held) => held.closeIfUnclaimed()));
    },
  };
}
