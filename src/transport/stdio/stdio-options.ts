import type { Logger } from '../../internal/logger.js';

/** Default wait after ending stdin before SIGTERM, and after SIGTERM before SIGKILL. */
export const DEFAULT_CLOSE_GRACE_MS = 2000;
/** Default bound on reading what stdout still holds after the process exited. */
export const DEFAULT_EXIT_DRAIN_MS = 50;
/** Default size of the stderr ring buffer. */
export const DEFAULT_STDERR_BUFFER_BYTES = 64 * 1024;
/** The largest stderr tail an error carries. */
export const MAX_STDERR_TAIL_BYTES = 8 * 1024;

export interface StdioTransportOptions {
  /** The program to run, found on PATH like a shell would but never run through one. */
  command: string;
  args?: readonly string[];
  /** Variables set for the server on top of the inherited allow-list (`undefined` removes one). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Inherit this process's whole environment instead of the allow-list. */
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
