// The names the host benchmark takes from mcp-host, wherever the package exports them: the
// naming helpers left the root entry for `mcp-host/naming` in the renovation (issue 11), and the
// same benchmark code must run on builds from before and after it.
import * as root from 'mcp-host';

const naming = 'assignNames' in root ? root : await import('mcp-host/naming');

export const { McpClient, McpHost } = root;
export const { assignNames, isProviderSafeName } = naming;
