import WebSocket from 'ws';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { preview, redact } from '../../errors/redact.js';
import { headerSecretValues, registerSecrets } from '../../errors/secret-values.js';
import { debugLogger } from '../../internal/debug-logger.js';
import type { Disposable } from '../../internal/disposable.js';
import type { Logger } from '../../internal/logger.js';
import { RateLimiter } from '../../internal/rate-limiter.js';
import { onAbort } from '../../internal/signals.js';
import { deferred, settlesWithin } from '../../internal/wait.js';
import type { JsonRpcMessage } from '../../jsonrpc/message.js';
import type { Transport, TransportDiscards, TransportState } from '../../jsonrpc/transport.js';
import { TransportEvents } from '../transport-events.js';
import {
  byteLimit,
  DEFAULT_WEBSOCKET_OPTIONS,
  MCP_SUBPROTOCOL,
  wsClientOptions,
  type WebSocketStats,
  type WebSocketTransportOptions,
} from './websocket-options.js';

/** ws's error code for a frame over `maxPayload`. */
const WS_TOO_LARGE = 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';

/** How an opening attempt ended, when it did not open. */
type ConnectFailure =
  | { kind: 'error'; error: Error }
  | { kind: 'status'; status: number }
  | { kind: 'timeout' }
  | { kind: 'aborted'; reason: unknown }
  | { kind: 'closed' };

/**
 * A server reached over a WebSocket (not a standard MCP transport): subprotocol `mcp`, one JSON-RPC
 * message per text frame, built on the `ws` library (Node only).
 *
 * - `start()` connects within `connectTimeoutMs`; refused, unreachable, an upgrade answered with a
 *   status (401, 404...) or without the `mcp` subprotocol throw `CONNECT_FAILED`, the time running
 *   out throws `CONNECT_TIMEOUT`, the caller's signal `ABORTED`.
 * - Binary frames and text frames that are not JSON are skipped, counted and reported at a bounded
 *   rate (`INVALID_MESSAGE` problems); they never close the connection. Text is not checked for
 *   valid UTF-8 (invalid bytes make a junk frame rather than a 1007 close).
 * - A frame over `maxMessageBytes` is refused by ws from its header, before it is read; the rest
 *   of it cannot be skipped, so ws closes the connection with 1009. The transport reports a
 *   `MESSAGE_TOO_LARGE` problem and closes at once with that error as its reason, so every pending
 *   request fails with it without waiting for the closing handshake.
 * - A drop while open closes the transport with `CONNECTION_CLOSED` carrying the close code and
 *   the redacted close reason (`details.closeCode`, `details.closeReason`).
 * - Keep-alive: a ping every `keepAliveIntervalMs`; one still unanswered when the next is due
 *   closes the transport with `KEEPALIVE_TIMEOUT`.
 * - `close()` sends a normal closure (1000), waits for the server's answer up to `closeGraceMs`,
 *   then destroys the socket; it resolves when the socket is closed.
 */
export class WebSocketTransport implements Transport {
  readonly serverName: string | undefined;
  readonly stats: WebSocketStats = {
    messagesReceived: 0,
    messagesSent: 0,
    junkFrames: 0,
    binaryFrames: 0,
    oversizedMessages: 0,
  };

  readonly #options: WebSocketTransportOptions;
  readonly #url: string;
  readonly #logger: Logger;
  readonly #maxMessageBytes: number;
  readonly #maxOutboundBytes: number;
  readonly #closeGraceMs: number;
  readonly #connectTimeoutMs: number;
  readonly #keepAliveIntervalMs: number;
  readonly #junkLimiter = new RateLimiter(1, 5);
  readonly #events: TransportEvents;
  /** Resolves when the socket has emitted `close` (or was never made). */
  readonly #socketClosed = deferred();
  readonly #secrets: Disposable[] = [];
  #state: TransportState = 'new';
  #socket: WebSocket | undefined;
  #starting: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #releasing: Promise<void> | undefined;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  #awaitingPong = false;
  #finished = false;
  #closeRequested = false;

  readonly onMessage;
  readonly onProblem;
  readonly onClose;

  constructor(options: WebSocketTransportOptions) {
    const defaults = DEFAULT_WEBSOCKET_OPTIONS;
    this.#options = options;
    this.serverName = options.serverName;
    this.#url = String(options.url);
    this.#logger = options.logger ?? debugLogger;
    this.#maxMessageBytes = byteLimit(
      options.maxMessageBytes,
      defaults.maxMessageBytes,
      options.serverName,
    );
    this.#maxOutboundBytes = byteLimit(
      options.maxOutboundBytes,
      defaults.maxOutboundBytes,
      options.serverName,
    );
    this.#closeGraceMs = options.closeGraceMs ?? defaults.closeGraceMs;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? defaults.connectTimeoutMs;
    this.#keepAliveIntervalMs = options.keepAliveIntervalMs ?? defaults.keepAliveIntervalMs;
    this.#events = new TransportEvents(this.#logger, options.serverName);
    this.onMessage = this.#events.message.event;
    this.onProblem = this.#events.problem.event;
    this.onClose = this.#events.close.event;
  }

  /** What this transport discarded so far: junk (and binary) frames, and an oversized one. */
  get discards(): TransportDiscards {
    const { junkFrames, binaryFrames, oversizedMessages } = this.stats;
    return { junkMessages: junkFrames + binaryFrames, oversizedMessages };
  }

  get state(): TransportState {
    return this.#state;
  }

  /** The subprotocol the server selected (`mcp` once open). */
  get protocol(): string | undefined {
    return this.#socket?.protocol || undefined;
  }

  start(options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#starting ??= this.#start(options.signal);
    return this.#starting;
  }

  send(message: JsonRpcMessage): void {
    const socket = this.#socket;
    if (this.#state !== 'open' || socket === undefined) {
      const code =
        this.#state === 'new' || this.#state === 'starting' ? 'NOT_CONNECTED' : 'CONNECTION_CLOSED';
      throw this.#error(code, `cannot send: the connection is ${this.#state}`);
    }
    if (socket.bufferedAmount > this.#maxOutboundBytes) {
      throw this.#error(
        'OUTBOUND_BUFFER_FULL',
        `the server is not reading: ${socket.bufferedAmount} bytes are waiting to be sent (maxOutboundBytes ${this.#maxOutboundBytes})`,
        { details: { bufferedAmount: socket.bufferedAmount } },
      );
    }
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch (error) {
      throw this.#error('INVALID_ARGUMENT', 'the message cannot be serialised as JSON', {
        cause: error,
      });
    }
    // A write that fails after this shows up as the socket closing, which fails what is pending.
    socket.send(text, () => {});
    this.stats.messagesSent++;
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #start(signal: AbortSignal | undefined): Promise<void> {
    if (this.#state !== 'new') throw this.#error('INVALID_ARGUMENT', 'start() called twice');
    this.#state = 'starting';
    if (signal?.aborted)
      throw this.#fail(this.#connectError({ kind: 'aborted', reason: signal.reason }));
    // The header values are secrets by the shared rule (see errors/secret-values.ts).
    const { headers, publicHeaders } = this.#options;
    this.#secrets.push(...registerSecrets(headerSecretValues(headers, publicHeaders)));
    let socket: WebSocket;
    try {
      const options = wsClientOptions(
        this.#options.headers,
        this.#maxMessageBytes,
        this.#closeGraceMs,
      );
      socket = new WebSocket(this.#url, [MCP_SUBPROTOCOL], options);
    } catch (error) {
      // A malformed URL or a scheme other than ws/wss throws synchronously.
      throw this.#fail(
        this.#error('INVALID_ARGUMENT', `invalid WebSocket URL: ${String(error)}`, {
          cause: error,
        }),
      );
    }
    this.#socket = socket;
    socket.once('close', () => this.#socketClosed.resolve());
    const failure = await this.#awaitOpen(socket, signal);
    if (this.#closeRequested) {
      // close() was called while connecting: it owns the socket and fires onClose (undefined).
      await this.#closing;
      throw this.#connectError({ kind: 'closed' });
    }
    if (failure !== undefined) {
      await settlesWithin(this.#socketClosed.promise, this.#closeGraceMs, { ref: true });
      throw this.#fail(this.#connectError(failure));
    }
  }

  /**
   * Waits for the connecting socket's `open`, and resolves `undefined` then (the transport is open
   * and wired before any frame can be delivered); otherwise it resolves how the attempt failed
   * (after the socket's `close`). The timeout, the caller's signal and an upgrade answered with an
   * HTTP status end the handshake with `terminate()`. Every listener and the timer are removed
   * when it settles.
   */
  #awaitOpen(
    socket: WebSocket,
    signal: AbortSignal | undefined,
  ): Promise<ConnectFailure | undefined> {
    return new Promise((resolve) => {
      let failure: ConnectFailure | undefined;
      const fail = (why: ConnectFailure): void => {
        failure ??= why;
        // Ends the handshake; ws then emits `error` (ignored) and `close`.
        socket.terminate();
      };
      const timer = setTimeout(() => fail({ kind: 'timeout' }), this.#connectTimeoutMs);
      timer.unref();
      let removeAbort = (): void => {};
      const onError = (error: Error): void => {
        failure ??= { kind: 'error', error };
      };
      const onResponse = (_request: unknown, response: { statusCode?: number; resume(): void }) => {
        response.resume();
        fail({ kind: 'status', status: response.statusCode ?? 0 });
      };
      const done = (result: ConnectFailure | undefined): void => {
        clearTimeout(timer);
        removeAbort();
        socket.off('open', onOpen);
        socket.off('close', onClose);
        socket.off('unexpected-response', onResponse);
        socket.off('error', onError);
        // Errors after the attempt are the transport's (or the ones terminate() causes).
        socket.on('error', () => {});
        resolve(result);
      };
      const onOpen = (): void => {
        // Wired before anything else runs: the first frames may follow the handshake at once.
        this.#state = 'open';
        this.#wire(socket);
        done(undefined);
      };
      const onClose = (): void => done(failure ?? { kind: 'closed' });
      socket.once('open', onOpen);
      socket.once('close', onClose);
      socket.on('unexpected-response', onResponse);
      socket.on('error', onError);
      // Last: an already aborted signal ends the attempt at once, through the listeners above.
      removeAbort = onAbort(signal, (reason) => fail({ kind: 'aborted', reason }));
    });
  }

  #wire(socket: WebSocket): void {
    socket.on('message', (data: WebSocket.RawData, isBinary: boolean) =>
      this.#onFrame(data, isBinary),
    );
    socket.on('error', (error: Error & { code?: string }) => this.#onSocketError(error));
    socket.once('close', (code: number, reason: Buffer) => this.#onDrop(code, reason));
    socket.on('pong', () => {
      this.#awaitingPong = false;
    });
    const interval = this.#keepAliveIntervalMs;
    if (interval > 0) {
      this.#keepAlive = setInterval(() => this.#ping(socket), interval);
      this.#keepAlive.unref();
    }
  }

  #ping(socket: WebSocket): void {
    if (this.#awaitingPong) {
      const interval = this.#keepAliveIntervalMs;
      this.#lost(
        this.#error(
          'KEEPALIVE_TIMEOUT',
          `the server did not answer a keep-alive ping within ${interval} ms`,
          { details: { keepAliveIntervalMs: interval } },
        ),
      );
      return;
    }
    this.#awaitingPong = true;
    socket.ping();
  }

  #onFrame(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.#finished) return;
    if (isBinary) {
      this.stats.binaryFrames++;
      this.#onJunk(`skipped a binary frame of ${frameBytes(data)} bytes`);
      return;
    }
    const text = frameText(data);
    // A message is an object or a batch; anything else is junk, spotted without a throwing parse.
    const first = text.trimStart().charCodeAt(0);
    let value: unknown;
    let parsed = false;
    if (first === 0x7b || first === 0x5b) {
      try {
        value = JSON.parse(text);
        parsed = true;
      } catch {
        // junk, below
      }
    }
    if (!parsed) {
      this.stats.junkFrames++;
      this.#onJunk(`skipped a text frame that is not JSON: ${preview(text, 80)}`);
      return;
    }
    this.stats.messagesReceived++;
    this.#events.message.fire(value);
  }

  #onJunk(what: string): void {
    const suppressed = this.#junkLimiter.take();
    if (suppressed < 0) return;
    const more = suppressed > 0 ? ` (${suppressed} more since the last report)` : '';
    const error = this.#error('INVALID_MESSAGE', `${what}${more}`, {
      details: { junkFrames: this.stats.junkFrames, binaryFrames: this.stats.binaryFrames },
    });
    this.#logger.warn(error.message, { server: this.serverName });
    this.#events.problem.fire({ error, discarded: 'junk' });
  }

  /** ws reports a protocol error it will close the connection for (oversized frame, bad frame). */
  #onSocketError(error: Error & { code?: string }): void {
    if (this.#finished) return;
    if (error.code === WS_TOO_LARGE) {
      this.stats.oversizedMessages++;
      const tooLarge = this.#error(
        'MESSAGE_TOO_LARGE',
        `the server sent a frame over the ${this.#maxMessageBytes}-byte limit (maxMessageBytes); the connection was closed with 1009`,
        { details: { maxMessageBytes: this.#maxMessageBytes, closeCode: 1009 } },
      );
      this.#logger.warn(tooLarge.message, { server: this.serverName });
      this.#events.problem.fire({ error: tooLarge, discarded: 'oversized' });
      this.#lost(tooLarge);
      return;
    }
    this.#lost(
      this.#error('CONNECTION_CLOSED', `the WebSocket connection failed: ${error.message}`, {
        cause: error,
        details: { wsCode: error.code },
      }),
    );
  }

  #onDrop(code: number, reason: Buffer): void {
    if (this.#finished || this.#state === 'closing') return;
    const text = redact(preview(reason.toString('utf8'), 200));
    this.#finish(
      this.#error(
        'CONNECTION_CLOSED',
        `the server closed the connection (code ${code}${text === '' ? '' : `: ${text}`})`,
        { details: { closeCode: code, closeReason: text } },
      ),
    );
  }

  /** The connection is unusable: close the transport now, release the socket in the background. */
  #lost(reason: McpHostError): void {
    if (this.#finished) return;
    this.#finish(reason);
    this.#releasing ??= this.#release(false);
  }

  async #close(): Promise<void> {
    this.#closeRequested = true;
    if (this.#state === 'starting') {
      // Ends the attempt; #start sees the close event and returns.
      this.#socket?.terminate();
      await settlesWithin(this.#socketClosed.promise, this.#closeGraceMs, { ref: true });
      this.#finish(undefined);
      return;
    }
    if (this.#state === 'new') {
      this.#finish(undefined);
      return;
    }
    if (this.#state === 'open') {
      this.#state = 'closing';
      this.#releasing ??= this.#release(true);
      await this.#releasing;
      this.#finish(undefined);
    }
    await this.#releasing;
  }

  /** Closes the socket: a normal closure when asked, bounded, then destroyed. */
  async #release(graceful: boolean): Promise<void> {
    const socket = this.#socket;
    if (socket === undefined) return;
    this.#stopKeepAlive();
    if (graceful) {
      socket.close(1000);
      if (await settlesWithin(this.#socketClosed.promise, this.#closeGraceMs, { ref: true }))
        return;
    }
    socket.terminate();
    await settlesWithin(this.#socketClosed.promise, this.#closeGraceMs, { ref: true });
  }

  #stopKeepAlive(): void {
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }

  #finish(reason: McpHostError | undefined): void {
    this.#state = 'closed';
    if (this.#finished) return;
    this.#finished = true;
    this.#stopKeepAlive();
    for (const secret of this.#secrets.splice(0)) secret.dispose();
    this.#events.closed(reason);
  }

  #fail(error: McpHostError): McpHostError {
    this.#finish(error);
    return error;
  }

  /** A local failure of this transport, naming its server. */
  #error(
    code: McpHostError['code'],
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ): McpHostError {
    return new McpHostError(code, message, { serverName: this.serverName, ...options });
  }

  /** The typed error `start()` throws for a failed attempt (the URL redacted). */
  #connectError(failure: ConnectFailure): McpHostError {
    const url = redact(this.#url);
    switch (failure.kind) {
      case 'timeout':
        return this.#error(
          'CONNECT_TIMEOUT',
          `could not connect to ${url} within ${this.#connectTimeoutMs} ms (connectTimeoutMs)`,
          { details: { url, connectTimeoutMs: this.#connectTimeoutMs } },
        );
      case 'aborted':
        return this.#error('ABORTED', 'start was cancelled by the caller', {
          details: { url },
          cause: failure.reason,
        });
      case 'status':
        return this.#error(
          'CONNECT_FAILED',
          `${url} refused the WebSocket upgrade with HTTP status ${failure.status}`,
          { details: { url, status: failure.status } },
        );
      case 'error': {
        const errno = (failure.error as { code?: unknown }).code;
        return this.#error(
          'CONNECT_FAILED',
          `could not connect to ${url}: ${failure.error.message}`,
          {
            cause: failure.error,
            details: typeof errno === 'string' ? { url, errno } : { url },
          },
        );
      }
      case 'closed':
        return this.#error(
          'CONNECTION_CLOSED',
          `the transport was closed while connecting to ${url}`,
          { details: { url } },
        );
    }
  }
}

/** The chunks of a frame as ws delivers it (a Buffer, an array of them, or an ArrayBuffer). */
function toBuffers(data: WebSocket.RawData): Buffer[] {
  if (Array.isArray(data)) return data;
  if (Buffer.isBuffer(data)) return [data];
  return [Buffer.from(data)];
}

/** A frame's payload as text (invalid UTF-8 becomes U+FFFD, which no JSON parse accepts). */
function frameText(data: WebSocket.RawData): string {
  return Buffer.isBuffer(data)
    ? data.toString('utf8')
    : Buffer.concat(toBuffers(data)).toString('utf8');
}

function frameBytes(data: WebSocket.RawData): number {
  return toBuffers(data).reduce((sum, chunk) => sum + chunk.length, 0);
}
