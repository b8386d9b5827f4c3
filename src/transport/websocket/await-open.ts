import type WebSocket from 'ws';
import type { ConnectFailure } from './connect-failure.js';

export interface AwaitOpenOptions {
  signal?: AbortSignal | undefined;
  connectTimeoutMs: number;
  /** Called synchronously on `open`, before any frame can be delivered. */
  onOpen: () => void;
}

/**
 * Waits for a connecting socket's `open`, and resolves `undefined` then; otherwise it resolves how
 * the attempt failed (after the socket's `close`). The timeout, the caller's signal and an upgrade
 * answered with an HTTP status end the handshake with `terminate()`. Every listener and the timer
 * are removed when it settles.
 */
export function awaitOpen(
  socket: WebSocket,
  options: AwaitOpenOptions,
): Promise<ConnectFailure | undefined> {
  const { signal } = options;
  return new Promise((resolve) => {
    let failure: ConnectFailure | undefined;
    const fail = (why: ConnectFailure): void => {
      failure ??= why;
      // Ends the handshake; ws then emits `error` (ignored) and `close`.
      socket.terminate();
    };
    const timer = setTimeout(() => fail({ kind: 'timeout' }), options.connectTimeoutMs);
    timer.unref();
    const onAbort = (): void => fail({ kind: 'aborted', reason: signal?.reason });
    const onError = (error: Error): void => {
      failure ??= { kind: 'error', error };
    };
    const onResponse = (_request: unknown, response: { statusCode?: number; resume(): void }) => {
      response.resume();
      fail({ kind: 'status', status: response.statusCode ?? 0 });
    };
    const done = (result: ConnectFailure | undefined): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.off('open', onOpen);
      socket.off('close', onClose);
      socket.off('unexpected-response', onResponse);
      socket.off('error', onError);
      // Errors after the attempt are the transport's (or the ones terminate() causes).
      socket.on('error', () => {});
      resolve(result);
    };
    const onOpen = (): void => {
      options.onOpen();
      done(undefined);
    };
    const onClose = (): void => done(failure ?? { kind: 'closed' });
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('open', onOpen);
    socket.once('close', onClose);
    socket.on('unexpected-response', onResponse);
    socket.on('error', onError);
  });
}
