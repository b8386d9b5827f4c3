import { describe, expect, it, vi } from 'vitest';
import { abortableDelay, deadlineSignal, linkSignals, onAbort, raceSignal } from './signals.js';

/** How many abort listeners a signal holds (Node keeps them on a symbol-keyed map). */
function listeners(signal: AbortSignal): number {
  const kEvents = Object.getOwnPropertySymbols(signal).find((s) => s.description === 'kEvents');
  const events = (signal as unknown as Record<symbol, Map<string, { size: number }>>)[kEvents!];
  return events?.get('abort')?.size ?? 0;
}

describe('signals', () => {
  it('onAbort calls the listener once with the reason, at once if already aborted, and removes it', () => {
    const controller = new AbortController();
    const seen: unknown[] = [];
    const remove = onAbort(controller.signal, (reason) => seen.push(reason));
    expect(listeners(controller.signal)).toBe(1);
    controller.abort('why');
    expect(seen).toEqual(['why']);
    remove();
    expect(listeners(controller.signal)).toBe(0);
    onAbort(controller.signal, (reason) => seen.push(`again ${String(reason)}`));
    expect(seen).toEqual(['why', 'again why']);
    expect(onAbort(undefined, () => seen.push('never'))).toBeTypeOf('function');
    const idle = new AbortController();
    onAbort(idle.signal, () => seen.push('removed'))();
    idle.abort();
    expect(seen).toEqual(['why', 'again why']);
  });

  it('linkSignals aborts with the first source, skips undefined, and cleanup leaves no listener', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkSignals(a.signal, undefined, b.signal);
    expect(listeners(a.signal) + listeners(b.signal)).toBe(2);
    b.abort('b first');
    expect(linked.signal.reason).toBe('b first');
    expect(listeners(a.signal) + listeners(b.signal)).toBe(0);
    const c = new AbortController();
    const kept = linkSignals(c.signal);
    kept.cleanup();
    expect(listeners(c.signal)).toBe(0);
    c.abort();
    expect(kept.signal.aborted).toBe(false);
    expect(linkSignals(a.signal).signal.reason).toBe(a.signal.reason);
  });

  it('deadlineSignal aborts after its time with the reason made then; cleanup clears the timer', () => {
    vi.useFakeTimers();
    try {
      const deadline = deadlineSignal(100, () => 'late');
      vi.advanceTimersByTime(99);
      expect(deadline.signal.aborted).toBe(false);
      vi.advanceTimersByTime(1);
      expect(deadline.signal.reason).toBe('late');
      const cleared = deadlineSignal(100, () => 'never');
      cleared.cleanup();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('raceSignal settles as the promise does, or rejects on abort, removing its listener', async () => {
    const controller = new AbortController();
    await expect(raceSignal(Promise.resolve(1), controller.signal)).resolves.toBe(1);
    await expect(raceSignal(Promise.reject(new Error('no')), controller.signal)).rejects.toThrow(
      'no',
    );
    expect(listeners(controller.signal)).toBe(0);
    const pending = raceSignal(
      new Promise(() => {}),
      controller.signal,
      (reason) => new Error(String(reason)),
    );
    controller.abort('stop');
    await expect(pending).rejects.toThrow('stop');
  });

  it('abortableDelay resolves after its time, or rejects at once on abort, clearing its timer', async () => {
    vi.useFakeTimers();
    try {
      const controller = new AbortController();
      const waited = abortableDelay(50, controller.signal);
      vi.advanceTimersByTime(50);
      await expect(waited).resolves.toBeUndefined();
      expect(listeners(controller.signal)).toBe(0);
      const cut = abortableDelay(50, controller.signal, () => new Error('cut'));
      controller.abort();
      await expect(cut).rejects.toThrow('cut');
      expect(vi.getTimerCount()).toBe(0);
      await expect(abortableDelay(50, controller.signal)).rejects.toBeDefined();
    } finally {
      vi.useRealTimers();
    }
  });
});
