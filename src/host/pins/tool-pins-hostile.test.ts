/** ToolPins against listings that are hostile: unpinnable, duplicated or oversized definitions. */
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../protocol/types.js';
import { canonicalJson } from '../../state/canonical-json.js';
import { MemoryStateStore } from '../../state/state-store.js';
import { MAX_ERROR_DIFF_CHANGES, quarantinedError } from './quarantined-error.js';
import { PINS_NAMESPACE } from './pin-record.js';
import { ToolPins, toolPin } from './tool-pins.js';
import { pinnedDefinition } from './tool-diff.js';
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
  describe('hostile listings', () => {
    it('holds a tool whose definition cannot be pinned, and keeps the others', async () => {
      const { pins } = setup();
      await pins.review(ID, [forecast, alerts]);
      const loneSurrogate = variant(alerts, (t) => (t.description = 'bad \ud800 text'));
      const review = await pins.review(ID, [forecast, loneSurrogate]);
      expect(names(review)).toEqual({ allowed: ['forecast'], quarantined: ['alerts'] });
      expect(review.quarantined[0]).toMatchObject({ reason: 'invalid', pin: undefined });
      expect(review.quarantined[0]!.diff.summary).toMatch(/^not pinnable: /);
      // Its stored pin is not marked removed, and cannot be replaced by approving.
      expect(review.removed).toEqual([]);
      await expect(pins.approve(ID, 'alerts')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    });

    it('holds every copy of a name listed twice with different definitions', async () => {
      const { pins } = setup();
      const twin = variant(forecast, (t) => (t.description = 'the other one'));
      const review = await pins.review(ID, [forecast, alerts, twin, structuredClone(alerts)]);
      expect(names(review)).toEqual({ allowed: ['alerts'], quarantined: ['forecast', 'forecast'] });
      expect(review.quarantined.map((q) => q.reason)).toEqual(['invalid', 'invalid']);
      expect(review.quarantined[0]!.diff.summary).toContain('listed 2 times');
    });

    it('handles a tool called __proto__', async () => {
      const { pins, store } = setup();
      const proto: Tool = { name: '__proto__', inputSchema: { type: 'object' } };
      await pins.review(ID, [proto, forecast]);
      const changed = { ...proto, description: 'now with a description' };
      expect(names(await pins.review(ID, [changed, forecast]))).toEqual({
        allowed: ['forecast'],
        quarantined: ['__proto__'],
      });
      const stored = (await store.get<StoredPinsShape>(PINS_NAMESPACE, ID))!;
      expect(Object.hasOwn(stored.tools, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(stored.tools)).toBe(Object.prototype);
    });

    it('bounds the diff of a huge schema change, in the review and in the error', async () => {
      const huge = (salt: string): Tool => {
        const properties: Record<string, unknown> = {};
        for (let i = 0; i < 400; i++)
          properties[`p${i}`] = { type: 'string', description: `${salt}${'x'.repeat(500)}` };
        return { name: 'huge', inputSchema: { type: 'object', properties } };
      };
      const { pins } = setup();
      await pins.review(ID, [huge('a')]);
      const review = await pins.review(ID, [huge('b')]);
      const { diff } = review.quarantined[0]!;
      expect(diff.truncated).toBe(true);
      expect(diff.changes).toHaveLength(50);
      expect(JSON.stringify(diff).length).toBeLessThan(50_000);

      const error = quarantinedError('weather', 'huge', diff);
      expect(error.details!.changes).toHaveLength(MAX_ERROR_DIFF_CHANGES);
      expect(error.details!.truncated).toBe(true);
      expect(JSON.stringify(error).length).toBeLessThan(20_000);
      expect(error.message.length).toBeLessThanOrEqual(1024);
    });

    it('pins a definition over maxDefinitionChars by hash alone, and still catches its change', async () => {
      const { pins, store } = setup({ maxDefinitionChars: 200 });
      const long = variant(alerts, (t) => (t.description = 'd'.repeat(500)));
      await pins.review(ID, [long, forecast]);
      const stored = (await store.get<StoredPinsShape>(PINS_NAMESPACE, ID))!;
      expect(stored.tools.alerts!.definition).toBeUndefined();
      expect(stored.tools.alerts!.pin).toBe(await toolPin(long));
      const changed = variant(long, (t) => (t.description += '!'));
      const review = await pins.review(ID, [changed, forecast]);
      expect(review.quarantined[0]!.diff).toMatchObject({
        truncated: true,
        summary: 'definition changed (only the hash of the pinned definition was kept)',
      });
    });

    it('keeps the definitions of one listing up to maxListingChars, the rest by hash', async () => {
      const { pins, store } = setup({
        maxListingChars: canonicalJson(pinnedDefinition(forecast)).length,
      });
      await pins.review(ID, [forecast, alerts]);
      const stored = (await store.get<StoredPinsShape>(PINS_NAMESPACE, ID))!;
      expect(stored.tools.forecast!.definition).toEqual(pinnedDefinition(forecast));
      expect(stored.tools.alerts!.definition).toBeUndefined();
      expect(stored.tools.alerts!.pin).toBe(await toolPin(alerts));
    });

    it('refuses pins written by a newer mcp-host, and treats a malformed record as pinned-nothing', async () => {
      const store = new MemoryStateStore();
      const pins = new ToolPins({ store, policy: 'strict' });
      await store.set(PINS_NAMESPACE, ID, { version: 2, tools: {} });
      await expect(pins.review(ID, [forecast])).rejects.toMatchObject({
        code: 'STATE_VERSION_UNSUPPORTED',
      });
      expect(await store.get(PINS_NAMESPACE, ID)).toEqual({ version: 2, tools: {} });
      // Garbage in the record: nothing is trusted as pinned, and it is not a first listing.
      await store.set(PINS_NAMESPACE, ID, { version: 1, tools: { forecast: 'junk' } });
      expect(names(await pins.review(ID, [forecast])).quarantined).toEqual(['forecast']);
    });
  });
});
