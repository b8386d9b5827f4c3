/** Structured fields attached to a log line. Values must already be safe to print. */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * The logger a library user may pass in. Library code never writes to the console; without a
 * logger, lines go to `util.debuglog('mcp-host')` (enable with `NODE_DEBUG=mcp-host`).
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
