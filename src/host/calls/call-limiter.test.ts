import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { CallLimiter } from './call-limiter.js';

/** A call that runs until `finish()` is called, holding its slot. */
function held(limiter: CallLimiter, order: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<string>((resolve) => {
    finish = () => {
      limiter.release();
      resolve(name);
    };
  });
  const started = limiter.run(name, undefined, () => {
    order.push(name);
    return done;
  });
  return { started, finish: () => finish() };
}

describe('CallLimiter.tryTake', () => {
  it('takes a free slot, refuses when none is free or a call is queued, and release() frees it', async () => {
    const limiter = new CallLimiter('alpha', 2, 4);
    expect(limiter.tryTake()).toBe(true);
    expect(limiter.tryTake()).toBe(true);
    expect(limiter.inFlight).toBe(2);
    expect(limiter.tryTake()).toBe(false);
    expect(limiter.inFlight).toBe(2);
    const order: string[] = [];
    const queued = held(limiter, order, 'queued');
    expect(limiter.queued).toBe(1);
    limiter.release(); // the slot passes to the queued call
    expect(order).toEqual(['queued']);
    expect(limiter.inFlight).toBe(2);
    limiter.release();
    // A slot is free, and nobody waits for it.
    expect(limiter.tryTake()).toBe(true);
    limiter.release();
    queued.finish();
    expect(await queued.started).toBe('queued');
    expect(limiter.inFlight).toBe(0);
    await limiter.whenIdle();
  });

  it('never lets a newcomer overtake a queued call', () => {
    const limiter = new CallLimiter('alpha', 1, 4);
    expect(limiter.tryTake()).toBe(true);
    const order: string[] = [];
    const queued = held(limiter, order, 'queued');
    expect(limiter.tryTake()).toBe(false);
    // The freed slot passes to the queued call, not to whoever asks next.
    limiter.release();
    expect(order).toEqual(['queued']);
    expect(limiter.tryTake()).toBe(false);
    queued.finish();
    expect(limiter.tryTake()).toBe(true);
    limiter.release();
  });
});

describe('CallLimiter.run', () => {
  it('starts queued calls in their order as slots come free, and refuses past the queue', async () => {
    const limiter = new CallLimiter('alpha', 1, 2);
    const order: string[] = [];
    const a = held(limiter, order, 'a');
    const b = held(limiter, order, 'b');
    const c = held(limiter, order, 'c');
    await expect(limiter.run('d', undefined, () => Promise.resolve('d'))).rejects.toMatchObject({
      code: 'QUEUE_FULL',
      serverName: 'alpha',
      tool: 'd',
    });
    expect(order).toEqual(['a']);
    expect(limiter.queued).toBe(2);
    a.finish();
    expect(order).toEqual(['a', 'b']); // the slot passed at once, with no hop
    b.finish();
    c.finish();
    expect(await Promise.all([a.started, b.started, c.started])).toEqual(['a', 'b', 'c']);
    expect(limiter.inFlight).toBe(0);
    expect(limiter.queued).toBe(0);
  });

  it('takes an aborted call out of the queue, and a start that throws rejects only its own call', async () => {
    const limiter = new CallLimiter('alpha', 1, 5);
    const order: string[] = [];
    const a = held(limiter, order, 'a');
    const controller = new AbortController();
    const aborted = limiter.run('b', controller.signal, () => Promise.resolve('b'));
    const throwing = limiter.run('c', undefined, () => {
      throw new Error('boom');
    });
    const d = held(limiter, order, 'd');
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toMatchObject({ code: 'ABORTED', tool: 'b' });
    a.finish();
    await expect(throwing).rejects.toThrow('boom');
    // c never released its slot (it never ran): d waits for it, as a call would for a wedged one.
    expect(order).toEqual(['a']);
    limiter.release();
    expect(order).toEqual(['a', 'd']);
    d.finish();
    expect(await a.started).toBe('a');
    expect(await d.started).toBe('d');
  });

  it('keeps no served call reachable from its queue', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const limiter = new CallLimiter('alpha', 1, 10);
    const refs: WeakRef<object>[] = [];
    const first = held(limiter, [], 'first');
    await (async () => {
      const results: Promise<unknown>[] = [];
      for (let i = 0; i < 5; i++) {
        const payload = { big: new Array<number>(1000).fill(i) };
        refs.push(new WeakRef(payload));
        results.push(
          limiter.run(`q${i}`, undefined, () => {
            limiter.release();
            return Promise.resolve(payload.big.length);
          }),
        );
      }
      first.finish();
      expect(await Promise.all(results)).toEqual([1000, 1000, 1000, 1000, 1000]);
    })();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(refs.map((ref) => ref.deref())).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(limiter.inFlight).toBe(0);
  });
});
