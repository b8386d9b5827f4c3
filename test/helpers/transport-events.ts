/** Everything a transport's listeners see, in order, as short lines (for tests of handovers). */
import type { Transport } from '../../src/index.js';

/** Subscribes to `transport` and returns the list its events are written to as they come. */
export function listen(transport: Transport): string[] {
  const seen: string[] = [];
  transport.onMessage((m) => seen.push(`message ${JSON.stringify(m)}`));
  transport.onProblem((p) => seen.push(`problem ${p.error.code}`));
  transport.onClose((reason) => seen.push(`close ${reason?.code ?? 'local'}`));
  return seen;
}
