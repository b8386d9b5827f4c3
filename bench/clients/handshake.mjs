// The initialize request every client sends once, outside the timed region.

export const PROTOCOL_VERSION = '2025-11-25';

export const INITIALIZE_PARAMS = {
  protocolVersion: PROTOCOL_VERSION,
  capabilities: {},
  clientInfo: { name: 'mcp-host-bench', version: '1.0.0' },
};
