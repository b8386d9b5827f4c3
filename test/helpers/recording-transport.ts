import type {
  Disposable,
  JsonRpcMessage,
  McpHostError,
  Transport,
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

  constructor(inner: Transport, rewrite?: (message: JsonRpcMessage) => JsonRpcMessage) {
    this.#inner = inner;
    this.#rewrite = rewrite;
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
  start(options?: { signal?: AbortSignal }): Promise<void> {
    return this.#inner.start(options);
  }
  send(message: JsonRpcMessage): void {
    const sent = this.#rewrite === undefined ? message : this.#rewrite(structuredClone(message));
    this.#inner.send(sent);
    this.sent.push(structuredClone(sent));
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
