import { Socket } from 'node:net';
import type { Readable } from 'node:stream';

/** Bytes read from a server's stdout at a time, into the one buffer every read reuses. */
export const STDOUT_READ_BYTES = 64 * 1024;

export interface StdoutReaderOptions {
  /** Each chunk read; valid only during the call (the next read overwrites it). */
  onData: (chunk: Uint8Array) => void;
  /**
   * Once: when stdout ends (`ended` true), or fails or is destroyed before its end (false: what
   * was left unfinished is no message).
   */
  onEnd: (ended: boolean) => void;
}

/** What `readStdout` chose: the one reused buffer, or Node's 'data' events. */
export type StdoutReading = 'reused-buffer' | 'data-events';

/**
 * Reads a child process's stdout into one 64 KiB buffer reused for every read (`net.Socket`'s
 * `onread`), so reading allocates nothing per chunk. Through 'data' events every read is a fresh
 * buffer that lives until a young-generation GC, which V8 runs only once about 32 MiB of them have
 * piled up: a server streaming a 100 MiB line raised the host's peak memory by that much on top
 * of what the line decoder holds. Here the decoder (which copies what it keeps) is the only
 * memory a long line costs.
 *
 * Node offers `onread` only when a socket is made, so the pipe's handle, which `child_process`
 * already wrapped, is wrapped again: a private field (`_handle`), checked before use. Where it is
 * not there (another runtime, a future Node), stdout is read through 'data' events as before.
 * Destroying `stdout` (or the child's pipes ending) closes the handle either way.
 */
export function readStdout(stdout: Readable, options: StdoutReaderOptions): StdoutReading {
  const { onData, onEnd } = options;
  let done = false;
  const finish = (ended: boolean): void => {
    if (done) return;
    done = true;
    onEnd(ended);
  };
  const end = (): void => finish(true);
  const fail = (): void => finish(false);
  const handle = pipeHandle(stdout);
  if (handle === undefined) {
    stdout.on('data', (chunk: Buffer) => onData(chunk));
    stdout.once('end', end);
    stdout.on('error', fail);
    return 'data-events';
  }
  // Nothing can have been read yet (reads happen in a later event-loop phase than spawn's), but
  // whatever the first wrapper holds is passed on first all the same.
  if (stdout.readableLength > 0) {
    const early = stdout.read() as Buffer | null;
    if (early !== null) onData(early);
  }
  const buffer = Buffer.allocUnsafe(STDOUT_READ_BYTES);
  const reader = new Socket({
    handle,
    readable: true,
    writable: false,
    onread: {
      buffer,
      callback: (bytes: number, chunk: Uint8Array): void => onData(chunk.subarray(0, bytes)),
    },
  } as ConstructorParameters<typeof Socket>[0]);
  reader.once('end', end);
  reader.on('error', fail);
  // The first wrapper owns the pipe for everyone else: destroying it ends this one too.
  stdout.once('close', () => {
    reader.destroy();
    fail();
  });
  return 'reused-buffer';
}

/** The libuv pipe handle under a child's stdout, when it is there and can read into a buffer. */
function pipeHandle(stdout: Readable): object | undefined {
  if (!(stdout instanceof Socket)) return undefined;
  const handle = (stdout as unknown as { _handle?: unknown })._handle;
  if (typeof handle !== 'object' || handle === null) return undefined;
  const methods = handle as { useUserBuffer?: unknown; readStart?: unknown };
  if (typeof methods.useUserBuffer !== 'function' || typeof methods.readStart !== 'function')
    return undefined;
  return handle;
}
