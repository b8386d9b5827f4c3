// The names the host benchmark takes from mcp-host, wherever the package exports them, and the
// shape of what `host.start()` gives: the naming helpers left the root entry for `mcp-host/naming`
// in the renovation (issue 11), and `start()` now resolves to a summary whose `servers` are the
// statuses it used to return. The same benchmark code must run on builds from before and after.
import * as root from 'mcp-host';

const naming = 'assignNames' in root ? root : await import('mcp-host/naming');

export const { McpClient, McpHost } = root;
export const { assignNames, isProviderSafeName } = naming;

/** `host.start()`, then every server's status (an array before the renovation, `.servers` after). */
export async function startedStatuses(host) {
  const started = await host.start();
  return Array.isArray(started) ? started : started.servers;
}
