/** Test helpers shipped with mcp-host: linked in-memory transports. */
export {
  InMemoryTransport,
  createLinkedTransports,
  type InMemoryTransportOptions,
} from '../transport/in-memory.js';
