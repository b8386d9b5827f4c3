import { toDisposable, type Disposable } from './disposable.js';

export type Listener<T> = (value: T) => void;

/**
 * A multi-subscriber event. `event(listener)` subscribes and returns a Disposable; `fire(value)`
 * calls every listener in subscription order. A listener that throws never stops the others nor
 * the code that fired: the error goes to `onListenerError`.
 */
export class Emitter<T> {
  // One wrapper per subscription, so disposing one of two subscriptions of the same function
  // removes only that one.
  #listeners: readonly { readonly listener: Listener<T> }[] = [];
  readonly #onListenerError: (error: unknown) => void;

  constructor(onListenerError: (error: unknown) => void = () => {}) {
    this.#onListenerError = onListenerError;
  }

  /** Subscribes; bind-free so it can be exposed directly as `onX = emitter.event`. */
  readonly event = (listener: Listener<T>): Disposable => {
    const entry = { listener };
    this.#listeners = [...this.#listeners, entry];
    return toDisposable(() => {
      this.#listeners = this.#listeners.filter((e) => e !== entry);
    });
  };

  get listenerCount(): number {
    return this.#listeners.length;
  }

  fire(value: T): void {
    // Copy-on-write array: subscribing or unsubscribing during a fire does not disturb it.
    const listeners = this.#listeners;
    for (let i = 0; i < listeners.length; i++) {
      try {
        listeners[i]!.listener(value);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }

  clear(): void {
    this.#listeners = [];
  }
}
