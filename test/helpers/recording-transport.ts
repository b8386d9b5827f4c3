import type {
  Disposable,
  JsonRpcMessage,
  McpHostError,
  Transport,
  TransportDiscards,
  TransportProblem,
  TransportState,
} from '../../src/index.js';

/**
 * A transport that records every message sent, and the methods of requests received, for spec
 * checks. An optional `rewrite` changes what the client sends before it reaches the wire (and the
 * recording): a way to make the client appear to say something its public API cannot make it say.
 */
export class RecordingTransport implements Transport {
  readonly sent: JsonRpcMessage[] = [];
  /** Methods of the other side's requests, by id, so our responses can be checked against them. */
  readonly inboundMethods = new Map<string | number, string>();
  readonly #inner: Transport;
  readonly #rewrite: ((message: JsonRpcMessage) => JsonRpcMessage) | undefined;

  /**
   * Optional transport methods, passed on when the inner transport has them (HTTP: the headers of
   * each message, such as `Mcp-Method`; ending the exchange of an abandoned request) and absent
   * otherwise, so the client sees the same transport with or without the recorder.
   */
  readonly setRequestHeaders?: (compute: unknown) => void;
  readonly abandon?: (requestId: string | number) => void;

  constructor(inner: Transport, rewrite?: (message: JsonRpcMessage) => JsonRpcMessage) {
    this.#inner = inner;
    this.#rewrite = rewrite;
    const optional = inner as Pick<RecordingTransport, 'setRequestHeaders' | 'abandon'>;
    if (typeof optional.setRequestHeaders === 'function')
      this.setRequestHeaders = optional.setRequestHeaders.bind(inner);
    if (typeof optional.abandon === 'function') this.abandon = optional.abandon.bind(inner);
    inner.onMessage((message) => {
      const m = message as { id?: string | number; method?: string };
      if (m.method !== undefined && m.id !== undefined) this.inboundMethods.set(m.id, m.method);
    });
  }

  get state(): TransportState {
    return this.#inner.state;
  }
  get pid(): number | undefined {
    return (this.#inner as { pid?: number }).pid;
  }
  /** Passed on: what the transport discarded (the client's stats count it). */
  get discards(): TransportDiscards | undefined {
    return this.#inner.discards;
  }
  start(options?: { signal?: AbortSignal }): Promise<void> {
    return this.#inner.start(options);
  }
  send(message: JsonRpcMessage): void {
    const sent = this.#rewrite === undefined ? message : this.#rewrite(structuredClone(message));
    this.#inner.send(sent);
    this.sent.push(structuredClone(sent));
  }
  /** Passed on (the HTTP transport's `MCP-Protocol-Version` header). */
  setProtocolVersion(version: string | undefined): void {
    this.#inner.setProtocolVersion?.(version);
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
  [Symbol.asyncDispose](): Promise<void> {
    return this.#inner.close();
  }
  onMessage(listener: (message: unknown) => void): Disposable {
    return this.#inner.onMessage(listener);
  }
  onProblem(listener: (problem: TransportProblem) => void): Disposable {
    return this.#inner.onProblem(listener);
  }
  onClose(listener: (reason: McpHostError | undefined) => void): Disposable {
    return this.#inner.onClose(listener);
  }
}
