/** Test helpers shipped with mcp-host: linked in-memory transports and a scriptable fake MCP server. */
export {
  InMemoryTransport,
  createLinkedTransports,
  type InMemoryTransportOptions,
} from '../transport/in-memory.js';
export {
  FakeMcpServer,
  createFakeServer,
  type FakeMcpServerOptions,
  type FakeTool,
  type FakeToolContext,
} from './fake-mcp-server.js';
