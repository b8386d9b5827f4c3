import { describe, expect, it, vi } from 'vitest';
import { toDisposable } from './disposable.js';

describe('toDisposable', () => {
  it('runs the release function once, however it is disposed', () => {
    const release = vi.fn();
    const disposable = toDisposable(release);
    disposable.dispose();
    disposable[Symbol.dispose]();
    disposable.dispose();
    expect(release).toHaveBeenCalledOnce();
  });

  it('works with `using`', () => {
    const release = vi.fn();
    {
      using _resource = toDisposable(release);
      expect(release).not.toHaveBeenCalled();
    }
    expect(release).toHaveBeenCalledOnce();
  });
});
