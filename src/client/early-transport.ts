/**
 * Spawn before load: `McpClient.connect()` starts a local server's process before it loads the
 * session's code (the handshake, the JSON-RPC peer, the era's requests), so a server that spends
 * tens of milliseconds starting up (any Node server) does so while the client loads, not after.
 * A program that imports `mcp-host/client` has loaded little more than the client's shell by then.
 */
import type { Logger } from '../internal/logger.js';
import type { Transport } from '../jsonrpc/transport.js';
import { createTransport } from '../transport/create-transport.js';
import { isTransportDefinition } from '../transport/transport-definition.js';
import { TransportHold } from '../transport/transport-hold.js';
import type { McpClientOptions } from './client-options.js';

export interface EarlyTransport {
  /**
   * The session's transport option: the early transport the first time (its hold handed over by
   * `hand`, the session code's `HeldTransport`), then (a second connect of the same session, the
   * era fallback) a fresh one, made as without a head start.
   */
  transport(hand: (hold: TransportHold) => Transport): () => Promise<Transport> | Transport;
  /** Settles once the early transport is made and, if it runs a process, starting it is under way. */
  made: Promise<unknown>;
  /** Closes the early transport unless the session took it. */
  closeIfUnclaimed(): Promise<void>;
}

/**
 * Makes and starts the transport the session will open first, when that is certain and starting
 * it early changes nothing but the time: a stdio definition, or a factory's transport that runs a
 * process (it has a `pid`) and has no fallback or request headers (which the session reads before
 * it starts a transport). Anything else is left to the session (undefined). What the early
 * transport delivers before the session listens is kept (`TransportHold`); a failure to make or
 * start it is the session's to report, exactly as without a head start.
 */
export function startTransportEarly(
  transport: McpClientOptions['transport'],
  serverName: string | undefined,
  logger: Logger,
): EarlyTransport | undefined {
  let again: () => Transport | Promise<Transport>;
  let first: Promise<Transport | TransportHold>;
  if (typeof transport === 'function') {
    again = transport;
    first = Promise.resolve()
      .then(transport)
      .then((made) => (runsProcess(made) ? new TransportHold(Promise.resolve(made)) : made));
  } else if (isTransportDefinition(transport) && transport.type === 'stdio') {
    const options = { ...(serverName === undefined ? {} : { serverName }), logger };
    again = () => createTransport(transport, options);
    first = Promise.resolve(new TransportHold(again() as Promise<Transport>));
  } else return undefined;
  first.catch(() => {});
  let claimed = false;
  return {
    transport: (hand) => () => {
      if (claimed) return again();
      claimed = true;
      return first.then((made) => (made instanceof TransportHold ? hand(made) : made));
    },
    made: first.then(
      (made) => (made instanceof TransportHold ? made.launched : undefined),
      () => undefined,
    ),
    closeIfUnclaimed: async () => {
      if (claimed) return;
      claimed = true;
      const made = await first.catch(() => undefined);
      await made?.close();
    },
  };
}

/** A transport that runs a process, and that the session opens as it is (nothing read first). */
function runsProcess(transport: Transport): boolean {
  const shape = transport as Partial<Record<'pid' | 'fallback' | 'setRequestHeaders', unknown>>;
  return (
    'pid' in transport &&
    transport.state === 'new' &&
    typeof shape.fallback !== 'function' &&
    typeof shape.setRequestHeaders !== 'function'
  );
}
