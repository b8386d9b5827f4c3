import type {
  Disposable,
  JsonRpcMessage,
  McpHostError,
  Transport,
  TransportProblem,
  TransportState,
} from '../../src/index.js';

/** A transport that records every message sent, and the methods of requests received, for spec checks. */
export class RecordingTransport implements Transport {
  readonly sent: JsonRpcMessage[] = [];
  /** Methods of the other side's requests, by id, so our responses can be checked against them. */
  readonly inboundMethods = new Map<string | number, string>();
  readonly #inner: Transport;

  constructor(inner: Transport) {
    this.#inner = inner;
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
    this.#inner.send(message);
    this.sent.push(structuredClone(message));
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
