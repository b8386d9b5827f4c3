/**
 * `mcp-host watch [servers...]`: opens the servers and prints every host event (server states,
 * tool list changes, tool calls made through this host) as it happens, until SIGINT or SIGTERM,
 * or until nobody reads stdout any more (EPIPE), which close the servers. It supervises like a
 * host: a server that crashes is restarted with the config's restart policy and backoff. A line
 * per event for a person; NDJSON with `--format json`.
 */
import type { CliRuntime } from '../runtime.js';
import { formatWatchEvent, snapshotEvents, watchHost, type WatchEvent } from '../watch-events.js';

export async function watch(cli: CliRuntime, servers: string[]): Promise<void> {
  const opened = await cli.openHost({
    ...(servers.length === 0 ? {} : { servers }),
    start: false,
    // Long-running: a crashed server is restarted with the config's backoff, as a host does, and
    // each step (restarting, retry time, connecting, ready with its restart count) is an event.
    supervise: true,
  });
  const { host } = opened;
  // Servers the config kept from starting: an error each (the others are watched).
  cli.reportUnresolved(opened);
  const print = (event: WatchEvent) =>
    cli.output.line(
      cli.output.json
        ? JSON.stringify(event)
        : formatWatchEvent(event, (style, text) => cli.output.style(style, text)),
    );
  for (const event of snapshotEvents(host)) print(event);
  const subscription = watchHost(host, print);
  // Keeps the process alive (with no server running there is nothing else) until a signal, or
  // until stdout is gone (`watch --json | head -1`: the next write fails with EPIPE): nobody
  // reads any more, so the servers are closed at once.
  let stop = (): void => {};
  const stopped = new Promise<void>((resolve) => {
    const keepAlive = setInterval(() => {}, 1 << 30);
    stop = () => {
      clearInterval(keepAlive);
      resolve();
    };
  });
  const listened = ['SIGINT', 'SIGTERM'] as const;
  for (const signal of listened) process.once(signal, stop);
  process.stdout.once('error', stop);
  process.stdout.once('close', stop);
  if (!cli.output.json) cli.output.notice('watching; Ctrl-C to stop');
  try {
    // Every enabled server at once (the CLI's hosts make them lazy); a failure is an event.
    await Promise.allSettled(
      host
        .status()
        .filter((status) => status.state !== 'disabled')
        .map((status) => host.connectServer(status.name)),
    );
    await stopped;
  } finally {
    stop();
    for (const signal of listened) process.off(signal, stop);
    process.stdout.off('error', stop);
    process.stdout.off('close', stop);
    subscription.dispose();
  }
}
