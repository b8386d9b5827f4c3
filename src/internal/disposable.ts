/** Something that can be released synchronously, such as an event subscription. */
export interface Disposable {
  dispose(): void;
  [Symbol.dispose](): void;
}

/** Wraps a release function so it runs at most once. */
export function toDisposable(release: () => void): Disposable {
  let done = false;
  const dispose = (): void => {
    if (done) return;
    done = true;
    release();
  };
  return { dispose, [Symbol.dispose]: dispose };
}
