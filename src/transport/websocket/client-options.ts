import type WebSocket from 'ws';
import { McpHostError } from '../../errors/mcp-host-error.js';

/** The `ws` client options of a transport's socket. */
export function clientOptions(
  headers: Readonly<Record<string, string>> | undefined,
  maxMessageBytes: number,
  closeGraceMs: number,
): WebSocket.ClientOptions & { closeTimeout: number } {
  return {
    headers: { ...headers },
    maxPayload: maxMessageBytes,
    // No compression: a small frame cannot inflate into a large one, and no zlib per socket.
    perMessageDeflate: false,
    skipUTF8Validation: true,
    followRedirects: false,
    autoPong: true,
    // ws's own wait for the closing handshake (since 8.19; not yet in @types/ws).
    closeTimeout: closeGraceMs,
  };
}

/** A byte limit from the options: the default when absent, refused unless a positive number. */
export function positive(value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new McpHostError('INVALID_ARGUMENT', `expected a positive number of bytes, got ${value}`);
  return value;
}
