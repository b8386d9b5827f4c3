/**
 * The default logger of Node-only parts, over `util.debuglog('mcp-host')`, without a static
 * `node:util` import: a module importing `node:util` is loaded with all of that module's lazy parts
 * (an ES import reads every export), and as a chunk of its own, before a stdio server is spawned.
 * `node:util` is fetched with `process.getBuiltinModule` (Node 20.16+); where that is missing, it
 * is imported on the first line logged, and the lines logged until it has loaded are written then.
 */
import { builtin, whenBuiltin } from './builtin.js';
import type { LogFields, Logger } from './logger.js';

type Write = (format: string, ...values: unknown[]) => void;
type UtilModule = { debuglog(section: string): Write };

const MAX_EARLY_LINES = 100;
let write: Write | undefined;
let early: unknown[][] | undefined;

function writer(): Write | undefined {
  if (write !== undefined) return write;
  const util = builtin<UtilModule>('node:util');
  if (util !== undefined) return (write = util.debuglog('mcp-host'));
  if (early === undefined) {
    early = [];
    whenBuiltin<UtilModule>('node:util').then(
      (loaded) => {
        write = loaded.debuglog('mcp-host');
        for (const values of early ?? []) write(...(values as [string, ...unknown[]]));
        early = undefined;
      },
      () => {
        write = () => {};
      },
    );
  }
  return undefined;
}

function line(level: string, message: string, fields?: LogFields): void {
  const values =
    fields === undefined ? ['%s %s', level, message] : ['%s %s %j', level, message, fields];
  const to = writer();
  if (to !== undefined) to(...(values as [string, ...unknown[]]));
  else if (early !== undefined && early.length < MAX_EARLY_LINES) early.push(values);
}

/** The default logger of Node-only parts: silent unless `NODE_DEBUG=mcp-host` is set. */
export const debugLogger: Logger = {
  debug: (message, fields) => line('debug', message, fields),
  info: (message, fields) => line('info', message, fields),
  warn: (message, fields) => line('warn', message, fields),
  error: (message, fields) => line('error', message, fields),
};
