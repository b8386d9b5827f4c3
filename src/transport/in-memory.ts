import { McpHostError } from '../errors/mcp-host-error.js';
import { Emitter } from '../internal/emitter.js';
import type { JsonRpcMessage } from '../jsonrpc/message.js';
import type { Transport, TransportProblem, TransportState } from '../jsonrpc/transport.js';

export interface InMemoryTransportOptions {
  /**
   * Deliver a deep copy of each message (default false: the same object, which is fastest and
   * fine as long as neither side mutates what it sent or received).
   */
  clone?: boolean;
}

/**
 * One end of a linked in-memory pair. Messages sent on one end arrive on the other end in a later
 * microtask, in order, like bytes from a pipe would; closing either end closes both.
 */
export class InMemoryTransport implements Transport {
  readonly #messageEmitter = new Emitter<unknown>();
  readonly #problemEmitter = new Emitter<TransportProblem>();
  readonly #closeEmitter = new Emitter<McpHostError | undefined>();
  readonly #clone: boolean;
  #state: TransportState = 'new';
  #other: InMemoryTransport | undefined;
  /** Messages that arrived before this end was started. */
  #early: unknown[] | undefined = [];

  readonly onMessage = this.#messageEmitter.event;
  readonly onProblem = this.#problemEmitter.event;
  readonly onClose = this.#closeEmitter.event;

  constructor(options: InMemoryTransportOptions = {}) {
    this.#clone = options.clone ?? false;
  }

  /** Links two ends; each must be linked once. */
  static link(a: InMemoryTransport, b: InMemoryTransport): void {
    a.#other = b;
    b.#other = a;
  }

  get state(): TransportState {
    return this.#state;
  }

  start(): Promise<void> {
    if (this.#state === 'new') {
      this.#state = 'open';
      const early = this.#early ?? [];
      this.#early = undefined;
      if (early.length > 0)
        queueMicrotask(() => early.forEach((message) => this.#receive(message)));
    }
    return Promise.resolve();
  }

  send(message: JsonRpcMessage): void {
    if (this.#state !== 'open') {
      throw new McpHostError(
        this.#state === 'new' ? 'NOT_CONNECTED' : 'CONNECTION_CLOSED',
        `in-memory transport: cannot send, the connection is ${this.#state}`,
      );
    }
    const other = this.#other;
    if (other === undefined)
      throw new McpHostError('NOT_CONNECTED', 'in-memory transport: not linked');
    const payload: unknown = this.#clone ? structuredClone(message) : message;
    queueMicrotask(() => other.#receive(payload));
  }

  close(): Promise<void> {
    this.#closeWith(undefined);
    const other = this.#other;
    if (other !== undefined) {
      other.#closeWith(
        new McpHostError(
          'CONNECTION_CLOSED',
          'in-memory transport: the other end closed the connection',
        ),
      );
    }
    return Promise.resolve();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Reports a problem as a real transport would (for tests of the layers above). */
  injectProblem(problem: TransportProblem): void {
    this.#problemEmitter.fire(problem);
  }

  #receive(message: unknown): void {
    if (this.#early !== undefined) this.#early.push(message);
    else if (this.#state === 'open') this.#messageEmitter.fire(message);
  }

  #closeWith(reason: McpHostError | undefined): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#early = undefined;
    this.#closeEmitter.fire(reason);
    this.#closeEmitter.clear();
    this.#messageEmitter.clear();
    this.#problemEmitter.clear();
  }
}

/** Two linked in-memory transports: what one sends, the other receives. */
export function createLinkedTransports(
  options: InMemoryTransportOptions = {},
): [InMemoryTransport, InMemoryTransport] {
  const a = new InMemoryTransport(options);
  const b = new InMemoryTransport(options);
  InMemoryTransport.link(a, b);
  return [a, b];
}
