import { debuglog } from 'node:util';
import type { LogFields, Logger } from './logger.js';

const write = debuglog('mcp-host');

function line(level: string, message: string, fields?: LogFields): void {
  if (fields === undefined) write('%s %s', level, message);
  else write('%s %s %j', level, message, fields);
}

/** The default logger of Node-only parts: silent unless `NODE_DEBUG=mcp-host` is set. */
export const debugLogger: Logger = {
  debug: (message, fields) => line('debug', message, fields),
  info: (message, fields) => line('info', message, fields),
  warn: (message, fields) => line('warn', message, fields),
  error: (message, fields) => line('error', message, fields),
};
