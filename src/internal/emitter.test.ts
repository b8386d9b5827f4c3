import { describe, expect, it, vi } from 'vitest';
import { Emitter } from './emitter.js';

describe('Emitter', () => {
  it('calls every listener in subscription order with the value', () => {
    const emitter = new Emitter<number>();
    const calls: string[] = [];
    emitter.event((v) => calls.push(`a${v}`));
    emitter.event((v) => calls.push(`b${v}`));
    emitter.fire(1);
    emitter.fire(2);
    expect(calls).toEqual(['a1', 'b1', 'a2', 'b2']);
    expect(emitter.listenerCount).toBe(2);
  });

  it('a throwing listener stops neither the other listeners nor the code that fired', () => {
    const onListenerError = vi.fn();
    const emitter = new Emitter<string>(onListenerError);
    const boom = new Error('boom');
    const after = vi.fn();
    emitter.event(() => {
      throw boom;
    });
    emitter.event(after);
    expect(() => emitter.fire('x')).not.toThrow();
    expect(after).toHaveBeenCalledWith('x');
    expect(onListenerError).toHaveBeenCalledWith(boom);
  });

  it('a throwing listener is harmless without an error callback too', () => {
    const emitter = new Emitter<void>();
    const after = vi.fn();
    emitter.event(() => {
      throw new Error('boom');
    });
    emitter.event(after);
    emitter.fire();
    expect(after).toHaveBeenCalledOnce();
  });

  it('dispose unsubscribes, once, and works with `using`', () => {
    const emitter = new Emitter<number>();
    const listener = vi.fn();
    const subscription = emitter.event(listener);
    subscription.dispose();
    subscription.dispose();
    emitter.fire(1);
    expect(listener).not.toHaveBeenCalled();
    {
      using _scoped = emitter.event(listener);
      emitter.fire(2);
    }
    emitter.fire(3);
    expect(listener.mock.calls).toEqual([[2]]);
    expect(emitter.listenerCount).toBe(0);
  });

  it('disposing one of two subscriptions of the same function removes only that one', () => {
    const emitter = new Emitter<number>();
    const listener = vi.fn();
    const first = emitter.event(listener);
    emitter.event(listener);
    first.dispose();
    emitter.fire(1);
    expect(listener).toHaveBeenCalledOnce();
    expect(emitter.listenerCount).toBe(1);
  });

  it('changes made while firing take effect from the next fire', () => {
    const emitter = new Emitter<number>();
    const calls: string[] = [];
    const late = (v: number): void => {
      calls.push(`late${v}`);
    };
    const second = { dispose: (): void => {} };
    emitter.event((v) => {
      calls.push(`first${v}`);
      second.dispose();
      if (v === 1) emitter.event(late);
    });
    const subscription = emitter.event((v) => calls.push(`second${v}`));
    second.dispose = () => subscription.dispose();
    emitter.fire(1);
    emitter.fire(2);
    expect(calls).toEqual(['first1', 'second1', 'first2', 'late2']);
  });

  it('clear removes every listener', () => {
    const emitter = new Emitter<number>();
    const listener = vi.fn();
    emitter.event(listener);
    emitter.event(listener);
    emitter.clear();
    emitter.fire(1);
    expect(listener).not.toHaveBeenCalled();
    expect(emitter.listenerCount).toBe(0);
  });
});
