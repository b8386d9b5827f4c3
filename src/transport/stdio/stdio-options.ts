import type { Logger } from '../../internal/logger.js';
import {
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_MESSAGE_BYTES,
} from '../../jsonrpc/peer-options.js';

/** The defaults of `StdioTransportOptions`. */
export const DEFAULT_STDIO_OPTIONS = Object.freeze({
  /** Largest message accepted from the server: 16 MiB. */
  maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
  /** Largest amount of unwritten output held for a server that does not read: 64 MiB. */
  maxOutboundBytes: DEFAULT_MAX_BUFFERED_BYTES,
  /** How much of the server's stderr is kept: 64 KiB. */
  stderrBufferBytes: 64 * 1024,
  /** Close: wait after ending stdin before SIGTERM: 2 s. */
  closeGraceMs: 2_000,
  /** Close: wait after SIGTERM before SIGKILL: 2 s. */
  termGraceMs: 2_000,
  /** After the process exits, wait at most this long for stdout to end: 50 ms. */
  exitDrainMs: 50,
  /** A watchdog process kills the server's process group if this process dies (POSIX). */
  watchdog: true,
  /** The server inherits the allow-list below, not this process's whole environment. */
  inheritEnv: false,
  /**
   * The variables a server inherits without `inheritEnv` (enough to run, nothing secret), on
   * POSIX and on Windows (where names are matched case-insensitively).
   */
  inheritedEnv: Object.freeze({
    posix: Object.freeze(['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'] as const),
    windows: Object.freeze([
      'APPDATA',
      'COMSPEC',
      'HOMEDRIVE',
      'HOMEPATH',
      'LOCALAPPDATA',
      'PATH',
      'PATHEXT',
      'PROCESSOR_ARCHITECTURE',
      'PROGRAMDATA',
      'PROGRAMFILES',
      'SYSTEMDRIVE',
      'SYSTEMROOT',
      'TEMP',
      'USERNAME',
      'USERPROFILE',
    ] as const),
  }),
});

export interface StdioTransportOptions {
  /** The program to run, found on PATH like a shell would but never run through one. */
  command: string;
  args?: readonly string[];
  /**
   * Variables set for the server on top of the inherited allow-list (`undefined` removes one).
   * Their values are treated as secrets: masked in every error, log line and stderr tail while the
   * transport runs (and in its stderr tail for good), except the values of well-known variables
   * (`NON_SECRET_VARIABLES`: PATH, HOME, …), trivial values (`debug`, `true`, numbers, fewer than
   * 4 characters) and the variables named in `publicEnv`.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Names of `env` variables whose values are not secret and stay readable in errors and logs
   * (for example `['LOG_LEVEL', 'NODE_ENV']`); compared case-insensitively. Default: none.
   */
  publicEnv?: readonly string[];
  /** Inherit this process's whole environment instead of the allow-list (default false). */
  inheritEnv?: boolean;
  cwd?: string;
  /** The server's configured name, used in errors and logs. */
  serverName?: string;
  /** Largest message accepted from the server (default 16 MiB); larger ones are discarded. */
  maxMessageBytes?: number;
  /** Largest amount of unwritten output held for a server that does not read (default 64 MiB). */
  maxOutboundBytes?: number;
  /** How much of the server's stderr is kept (default 64 KiB). */
  stderrBufferBytes?: number;
  /** Close: wait after ending stdin before SIGTERM (default 2 s). */
  closeGraceMs?: number;
  /** Close: wait after SIGTERM before SIGKILL (default 2 s). */
  termGraceMs?: number;
  /** After the process exits, wait at most this long for stdout to end (default 50 ms). */
  exitDrainMs?: number;
  /**
   * Kill the server's process group if this process dies without closing it (default true;
   * POSIX only, Windows has no watchdog). One small `/bin/sh` process per host process (under
   * 2 MiB, in a process group of its own) holds a pipe from this process and is told each
   * server's process group; when the pipe closes (this process exited, or was killed by SIGKILL
   * or by a signal it has no handler for, such as a terminal's Ctrl-C or SIGTERM) it sends the
   * groups still running SIGTERM, then SIGKILL a second later. Descendants that left the server's
   * process group (setsid) are out of its reach; the exit hook and `close()` find those. `false`
   * leaves this server out (and starts no watchdog for it). See docs/lifecycle.md.
   */
  watchdog?: boolean;
  logger?: Logger;
}

/** Counters of one stdio connection. */
export interface StdioStats {
  messagesReceived: number;
  /** Lines on stdout that were not JSON, skipped. */
  junkLines: number;
  /** Messages over `maxMessageBytes`, discarded. */
  oversizedMessages: number;
  stderrBytes: number;
}
