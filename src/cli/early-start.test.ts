import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../test/helpers/fixture-server.js';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import type { HostServerDefinition } from '../host/server-definition.js';
import type { Transport } from '../jsonrpc/transport.js';
import type { HeldTransport } from '../transport/held-transport.js';
import { startEarly } from './early-start.js';
import { listen } from '../../test/helpers/transport-events.js';

describe('startEarly', () => {
  const stdio = (name: string): HostServerDefinition => ({
    name,
    transport: { type: 'stdio', command: process.execPath, args: [fixturePath('echo')] },
  });

  it('starts only the stdio servers among the first `count` enabled ones', async () => {
    await using guard = leakGuard();
    void guard;
    const servers: HostServerDefinition[] = [
      { ...stdio('off'), enabled: false },
      { name: 'remote', transport: { type: 'http', url: 'http://127.0.0.1:9/mcp' } },
      stdio('first'),
      stdio('later'),
    ];
    const early = startEarly(servers, 2);
    try {
      const byName = new Map(early.servers.map((s) => [s.name, s]));
      expect(byName.get('off')).toBe(servers[0]);
      expect(byName.get('remote')).toBe(servers[1]);
      expect(typeof byName.get('first')!.transport).toBe('function');
      expect(byName.get('later')).toBe(servers[3]);
      expect(early.servers.map((s) => s.name)).toEqual(['off', 'remote', 'first', 'later']);
    } finally {
      await early.close();
    }
  });

  it('hands each early transport over once, closes those never taken, and leaves the taken ones to their taker', async () => {
    await using guard = leakGuard();
    const early = startEarly([stdio('taken'), stdio('untaken')], 2);
    const factory = early.servers[0]!.transport as () => Transport | Promise<Transport>;
    const taken = await factory();
    const seen = listen(taken);
    await taken.start();
    guard.trackPid((taken as HeldTransport).pid);

    // A second connect of the same server (a retry, the era fallback) gets a transport of its own.
    const fresh = await factory();
    expect(fresh).not.toBe(taken);
    expect(fresh.state).toBe('new');
    await fresh.close();

    await early.close(); // ends 'untaken' (the guard checks no child is left) and not 'taken'
    expect(taken.state).toBe('open');
    const answered = new Promise((resolve) => taken.onMessage(resolve));
    taken.send({ jsonrpc: '2.0', id: 7, method: 'echo', params: { text: 'still here' } });
    expect(await answered).toMatchObject({ id: 7, result: { text: 'still here' } });
    await taken.close();
    expect(seen.at(-1)).toBe('close local');
  });
});
