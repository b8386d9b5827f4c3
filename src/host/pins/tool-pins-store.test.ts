/** ToolPins and its store: removed tools, pins kept across instances and processes, races. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/scratch.js';
import { insertAt } from '../../../test/helpers/json-edit.js';
import type { Tool } from '../../protocol/types.js';
import { FileStateStore } from '../../state/file-state-store.js';
import { MemoryStateStore, type StateStore } from '../../state/state-store.js';
import { MAX_REVIEW_ATTEMPTS, ToolPins, toolPin } from './tool-pins.js';
import { PINS_NAMESPACE } from './pin-record.js';
import {
  ID,
  type StoredPinsShape,
  alerts,
  forecast,
  names,
  setup,
  variant,
} from './tool-pins-test-helpers.js';

describe('ToolPins', () => {
  describe('removed tools', () => {
    it('keep their pins: coming back changed is a change, not a new tool', async () => {
      const { pins, events, store } = setup();
      await pins.review(ID, [forecast, alerts]);
      events.length = 0;
      const gone = await pins.review(ID, [alerts]);
      expect(gone).toMatchObject({ removed: ['forecast'], added: [], allowed: [alerts] });
      expect(events).toEqual([{ type: 'removed', identity: ID, tool: 'forecast' }]);
      expect((await pins.entries(ID)).find((e) => e.name === 'forecast')?.removedAt).toEqual(
        expect.any(String),
      );
      // Not reported as removed twice.
      expect((await pins.review(ID, [alerts])).removed).toEqual([]);

      // Back with another definition: held even under trust-on-first-use.
      const swapped = variant(forecast, (t) => (t.description = 'exfiltrate'));
      const back = await pins.review(ID, [alerts, swapped]);
      expect(back).toMatchObject({ added: ['forecast'], changed: ['forecast'] });
      expect(back.quarantined[0]).toMatchObject({
        reason: 'changed',
        diff: { summary: 'definition changed (only the hash of the pinned definition was kept)' },
      });
      const kept = (await store.get<StoredPinsShape>(PINS_NAMESPACE, ID))!.tools.forecast!;
      expect(kept.pin).toBe(await toolPin(forecast));
      expect(kept.definition).toBeUndefined();
      // Gone again while held: the held definition is dropped, the pin kept.
      expect((await pins.review(ID, [alerts])).removed).toEqual(['forecast']);
      expect((await pins.entries(ID)).find((e) => e.name === 'forecast')).toMatchObject({
        pin: await toolPin(forecast),
        pending: undefined,
      });
      // Back as it was pinned: allowed.
      expect(await pins.review(ID, [alerts, forecast])).toMatchObject({
        added: ['forecast'],
        changed: [],
        allowed: [alerts, forecast],
      });
    });

    it('a new tool held under strict is forgotten when it goes', async () => {
      const { pins } = setup({ policy: 'strict' });
      await pins.review(ID, [forecast]);
      await pins.review(ID, [forecast, alerts]);
      expect((await pins.review(ID, [forecast])).removed).toEqual(['alerts']);
      expect((await pins.entries(ID)).map((e) => e.name)).toEqual(['forecast']);
    });

    it('are kept up to maxRemovedPins, the oldest dropped first', async () => {
      let clock = Date.UTC(2026, 10, 22);
      const { pins } = setup({ maxRemovedPins: 2, now: () => new Date((clock += 1000)) });
      const tool = (name: string): Tool => ({ name, inputSchema: { type: 'object' } });
      await pins.review(ID, ['a', 'b', 'c', 'd'].map(tool));
      for (const left of [['b', 'c', 'd'], ['c', 'd'], ['d'], []])
        await pins.review(ID, left.map(tool));
      expect((await pins.entries(ID)).map((e) => e.name)).toEqual(['c', 'd']);
    });
  });

  it('keeps pins across instances and processes: a new ToolPins on the same state file', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'state.json');
    {
      await using store = new FileStateStore({ path });
      await new ToolPins({ store }).review(ID, [forecast, alerts]);
    }
    const changed = variant(forecast, (t) =>
      insertAt(t, '/inputSchema/properties/region/enum', 'cn'),
    );
    {
      await using store = new FileStateStore({ path });
      const pins = new ToolPins({ store });
      const review = await pins.review(ID, [changed, alerts]);
      expect(names(review)).toEqual({ allowed: ['alerts'], quarantined: ['forecast'] });
      expect(review.quarantined[0]!.diff.summary).toBe(
        "inputSchema: property 'region' enum value added",
      );
    }
    // Approved from elsewhere (a command line, say): the held definition is in the file.
    {
      await using store = new FileStateStore({ path });
      await new ToolPins({ store }).approve(ID, 'forecast', { pin: await toolPin(changed) });
    }
    {
      await using store = new FileStateStore({ path });
      expect(names(await new ToolPins({ store }).review(ID, [changed, alerts])).allowed).toEqual([
        'forecast',
        'alerts',
      ]);
    }
    const file = JSON.parse(readFileSync(path, 'utf8'));
    expect(Object.keys(file.namespaces.pins)).toEqual([ID]);
    expect(JSON.stringify(file)).not.toContain('listedAt');
  });

  describe('concurrency', () => {
    const tool = (name: string, description = name): Tool => ({
      name,
      description,
      inputSchema: { type: 'object' },
    });

    it('loses no pin when one ToolPins reviews the same identity many times at once', async () => {
      const { pins } = setup();
      await pins.review(ID, [tool('base')]);
      const names = Array.from({ length: 20 }, (_, i) => `t${i}`);
      // Each listing has the base tool and one new tool: every new tool must end up pinned.
      await Promise.all(names.map((name) => pins.review(ID, [tool('base'), tool(name)])));
      const entries = await pins.entries(ID);
      for (const name of ['base', ...names])
        expect(entries.find((e) => e.name === name)?.pin).toEqual(expect.any(String));
    });

    it('loses no pin when several ToolPins share a store and race (optimistic retry)', async () => {
      const store = new MemoryStateStore();
      let asked = 0;
      // A policy that approves everything, but answers nobody until all eight have asked: every
      // review reads the store before any writes it, so all but one must notice and start again.
      let release!: () => void;
      const barrier = new Promise<void>((resolve) => (release = resolve));
      const slow = {
        decide: async () => {
          if (++asked === 8) release();
          await barrier;
          return 'approve' as const;
        },
      };
      const instances = Array.from({ length: 8 }, () => new ToolPins({ store, policy: slow }));
      const reviews = await Promise.all(
        instances.map((pins, i) => pins.review(ID, [tool(`t${i}`)])),
      );
      const entries = await instances[0]!.entries(ID);
      expect(entries.map((e) => e.name)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7']);
      for (const review of reviews) expect(review.quarantined).toEqual([]);
      // The seven losers saw the first listing become a record and were asked again ('new').
      expect(asked).toBe(15);
    });

    it('loses no pin when two stores share one state file and race', async () => {
      using dir = tempDir();
      const path = join(dir.path, 'state.json');
      await using storeA = new FileStateStore({ path });
      await using storeB = new FileStateStore({ path });
      let asked = 0;
      let release!: () => void;
      const barrier = new Promise<void>((resolve) => (release = resolve));
      const policy = {
        decide: async () => {
          if (++asked === 2) release();
          await barrier;
          return 'approve' as const;
        },
      };
      const a = new ToolPins({ store: storeA, policy });
      const b = new ToolPins({ store: storeB, policy });
      await Promise.all([a.review(ID, [tool('a')]), b.review(ID, [tool('b')])]);
      expect((await b.entries(ID)).map((e) => [e.name, e.pin !== undefined])).toEqual([
        ['a', true],
        ['b', true],
      ]);
      expect(asked).toBe(3);
    });

    it(`gives up after ${MAX_REVIEW_ATTEMPTS} attempts against a writer that never stops, holding the tool`, async () => {
      const store = new MemoryStateStore();
      await store.set(PINS_NAMESPACE, ID, { version: 1, tools: {} });
      let updates = 0;
      // Another writer pins yet another definition of 'a' just before each of our updates.
      const racing: StateStore = {
        get: (namespace, key) => store.get(namespace, key),
        set: (namespace, key, value) => store.set(namespace, key, value),
        delete: (namespace, key) => store.delete(namespace, key),
        entries: (namespace) => store.entries(namespace),
        async update(namespace, key, fn) {
          updates++;
          await store.set(PINS_NAMESPACE, ID, {
            version: 1,
            tools: { a: { pin: `other-${updates}`, pinnedAt: '2026-11-22T00:00:00.000Z' } },
          });
          return store.update(namespace, key, fn);
        },
      };
      const review = await new ToolPins({ store: racing }).review(ID, [tool('a')]);
      expect(updates).toBe(MAX_REVIEW_ATTEMPTS);
      expect(review.quarantined).toMatchObject([{ reason: 'changed' }]);
      expect(review.allowed).toEqual([]);
    });

    it('quarantines the loser when two listings of a first contact disagree', async () => {
      const store = new MemoryStateStore();
      const a = new ToolPins({ store });
      const b = new ToolPins({ store });
      const v1 = tool('run', 'v1');
      const v2 = tool('run', 'v2');
      const [first, second] = await Promise.all([a.review(ID, [v1]), b.review(ID, [v2])]);
      // Whichever wrote first pinned its definition; the other one is a change of it.
      const outcomes = [first, second].map((r) => names(r));
      expect(outcomes).toContainEqual({ allowed: ['run'], quarantined: [] });
      expect(outcomes).toContainEqual({ allowed: [], quarantined: ['run'] });
      const pinned = (await a.entries(ID))[0]!;
      expect([await toolPin(v1), await toolPin(v2)]).toContain(pinned.pin);
      expect(pinned.pending?.reason).toBe('changed');
    });

    it('runs an approval and a review of the same identity one after the other', async () => {
      const { pins } = setup();
      await pins.review(ID, [forecast]);
      const changed = variant(forecast, (t) => (t.description = 'x'));
      await pins.review(ID, [changed]);
      const [, review] = await Promise.all([
        pins.approve(ID, 'forecast'),
        pins.review(ID, [changed]),
      ]);
      expect(names(review).allowed).toEqual(['forecast']);
    });
  });
});
