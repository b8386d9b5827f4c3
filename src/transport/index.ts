export type { Transport, TransportProblem, TransportState } from '../jsonrpc/transport.js';
export {
  InMemoryTransport,
  createLinkedTransports,
  type InMemoryTransportOptions,
} from './in-memory.js';
