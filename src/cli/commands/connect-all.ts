import type { McpHost } from '../../host/mcp-host.js';
import type { Logger } from '../../internal/logger.js';

/**
 * Connects every server of a serving command's host that is not disabled, at once, and warns
 * (`<command>: server '<name>' is <state> (<code>: <message>)`) of each that is not then ready:
 * a server that fails is served as failed, the command goes on.
 */
export async function connectAllServers(
  host: McpHost,
  logger: Logger,
  command: string,
): Promise<void> {
  await Promise.allSettled(
    host
      .status()
      .filter((status) => status.state !== 'disabled')
      .map((status) => host.connectServer(status.name)),
  );
  for (const status of host.status()) {
    if (status.state === 'ready' || status.state === 'degraded' || status.state === 'disabled')
      continue;
    const why =
      status.lastError === undefined
        ? ''
        : ` (${status.lastError.code}: ${status.lastError.message})`;
    logger.warn(`${command}: server '${status.name}' is ${status.state}${why}`);
  }
}
