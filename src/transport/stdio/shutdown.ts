/** Something with a graceful close, tracked while it lives. */
interface Closeable {
  close(): Promise<void>;
}

const open = new Set<Closeable>();

/** @internal Called by StdioTransport when it starts and when it is fully closed. */
export function trackOpen(item: Closeable): void {
  open.add(item);
}

/** @internal */
export function untrackOpen(item: Closeable): void {
  open.delete(item);
}

/** Closes every stdio server of this process gracefully, in parallel. */
export async function closeAllStdioServers(): Promise<void> {
  await Promise.allSettled([...open].map((item) => item.close()));
}

export interface ShutdownHandlerOptions {
  /** Signals to handle (default SIGINT and SIGTERM). */
  signals?: readonly NodeJS.Signals[];
  /** Called before servers are closed, e.g. to print a line. */
  onSignal?: (signal: NodeJS.Signals) => void;
}

/**
 * Opt-in graceful shutdown for applications: on SIGINT or SIGTERM, close every stdio server
 * (the full shutdown ladder), then exit with 128 + the signal number. A second signal exits at
 * once (the exit hook still kills every known process tree). A library never calls this itself.
 * Returns a function that removes the handlers.
 */
export function installShutdownHandlers(options: ShutdownHandlerOptions = {}): () => void {
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  let shuttingDown = false;
  const handler = (signal: NodeJS.Signals): void => {
    const code = 128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1);
    if (shuttingDown) process.exit(code);
    shuttingDown = true;
    options.onSignal?.(signal);
    void closeAllStdioServers().finally(() => process.exit(code));
  };
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}
