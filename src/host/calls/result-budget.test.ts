import { describe, expect, it } from 'vitest';
import type { CallToolResult, ContentBlock } from '../../protocol/types.js';
import { RESULT_BUDGET_SIGNATURE, applyResultBudget } from './result-budget.js';
import {
  formatBytes,
  jsonByteLength,
  resultByteLength,
  utf8Length,
  utf8Prefix,
} from './budget-size.js';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const text = (value: string): ContentBlock => ({ type: 'text', text: value });
const image = (size: number): ContentBlock => ({
  type: 'image',
  mimeType: 'image/png',
  data: 'A'.repeat(size),
});

/** Text-like bytes handed onward: everything `maxBytes` bounds (media left out). */
function textLikeBytes(result: CallToolResult): number {
  return resultByteLength({
    ...result,
    content: result.content.filter(
      (block) =>
        block.type !== 'image' &&
        block.type !== 'audio' &&
        !(block.type === 'resource' && typeof block.resource.blob === 'string'),
    ),
  });
}

/** The part of a cut text before the marker. */
function keptPart(value: string): string {
  const at = value.lastIndexOf('\n…[truncated:');
  return at < 0 ? value : value.slice(0, at);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

describe('applyResultBudget', () => {
  it('returns the very same result when it fits', () => {
    const result: CallToolResult = { content: [text('hello'), image(10_000)], isError: false };
    const outcome = applyResultBudget(result, { maxBytes: 100, maxImageBytes: 20_000 });
    expect(outcome).toEqual({
      result,
      truncated: false,
      originalBytes: 10_005,
      structuredContentDropped: false,
    });
    expect(outcome.result).toBe(result);
  });

  it('cuts one long text with a clear marker, within the budget', () => {
    const original = 'abcdefghij'.repeat(100_000);
    const result = deepFreeze<CallToolResult>({ content: [text(original)], isError: true });
    const { result: out, truncated, originalBytes } = applyResultBudget(result, { maxBytes: 4096 });
    expect(truncated).toBe(true);
    expect(originalBytes).toBe(1_000_000);
    expect(out.isError).toBe(true);
    const cut = (out.content[0] as { text: string }).text;
    expect(original.startsWith(keptPart(cut))).toBe(true);
    expect(cut).toMatch(
      new RegExp(
        `\\n…\\[truncated: \\d+\\.\\d KiB of 976\\.6 KiB shown; ${RESULT_BUDGET_SIGNATURE}\\]$`,
      ),
    );
    expect(bytes(cut)).toBeLessThanOrEqual(4096);
    expect(bytes(cut)).toBeGreaterThan(3900);
  });

  it('never cuts inside a multi-byte character or a surrogate pair', () => {
    for (const unit of ['é', '€', '😀', 'a€😀é']) {
      for (let budget = 300; budget < 320; budget++) {
        const original = unit.repeat(2000);
        const { result } = applyResultBudget({ content: [text(original)] }, { maxBytes: budget });
        const kept = keptPart((result.content[0] as { text: string }).text);
        expect(original.startsWith(kept)).toBe(true);
        expect(kept).not.toMatch(/\p{Cs}/u);
        expect(textLikeBytes(result)).toBeLessThanOrEqual(budget);
        expect(Buffer.from(kept, 'utf8').toString('utf8')).toBe(kept);
      }
    }
  });

  it('shares the budget fairly: short blocks whole, long ones cut to equal shares', () => {
    const result: CallToolResult = {
      content: [
        text('short'),
        text('x'.repeat(50_000)),
        text('y'.repeat(20_000)),
        text('z'.repeat(900)),
      ],
    };
    const { result: out } = applyResultBudget(result, { maxBytes: 10_000 });
    const texts = out.content.map((block) => (block as { text: string }).text);
    expect(texts[0]).toBe('short');
    expect(texts[3]).toBe('z'.repeat(900));
    const x = bytes(texts[1]!);
    const y = bytes(texts[2]!);
    expect(Math.abs(x - y)).toBeLessThanOrEqual(2);
    expect(textLikeBytes(out)).toBeLessThanOrEqual(10_000);
    expect(textLikeBytes(out)).toBeGreaterThan(10_000 - 10);
  });

  it('leaves later blocks out whole rather than cutting a thousand into slivers', () => {
    const content = Array.from({ length: 1000 }, (_, index) => text(`${index}:`.padEnd(1000, '.')));
    const { result: out, truncated } = applyResultBudget({ content }, { maxBytes: 20_000 });
    expect(truncated).toBe(true);
    expect(textLikeBytes(out)).toBeLessThanOrEqual(20_000);
    const texts = out.content.map((block) => (block as { text: string }).text);
    const note = texts.at(-1)!;
    expect(note).toMatch(
      new RegExp(`^\\[\\d+ more text blocks \\(.+\\) omitted; ${RESULT_BUDGET_SIGNATURE}\\]$`),
    );
    const shown = texts.slice(0, -1);
    expect(shown.length).toBeGreaterThan(10);
    expect(shown.length + Number(/^\[(\d+)/.exec(note)![1])).toBe(1000);
    shown.forEach((value, index) => {
      expect(value.startsWith(`${index}:`)).toBe(true);
      expect(bytes(keptPart(value))).toBeGreaterThanOrEqual(256);
    });
  });

  it('keeps images as images, even when the text is cut', () => {
    const result: CallToolResult = { content: [image(50_000), text('t'.repeat(10_000))] };
    const { result: out } = applyResultBudget(result, { maxBytes: 1000, maxImageBytes: 100_000 });
    expect(out.content[0]).toBe(result.content[0]);
    expect(textLikeBytes(out)).toBeLessThanOrEqual(1000);
  });

  it('replaces each image or audio clip over maxImageBytes (maxBytes by default) by a note', () => {
    const audio: ContentBlock = { type: 'audio', mimeType: 'audio/wav', data: 'B'.repeat(3000) };
    const result: CallToolResult = { content: [image(5000), text('caption'), image(100), audio] };
    const { result: out, truncated } = applyResultBudget(result, { maxBytes: 2000 });
    expect(truncated).toBe(true);
    expect(out.content[0]).toEqual(
      text(
        `[image (image/png, 4.9 KiB) omitted: over the 2.0 KiB per-item limit; ${RESULT_BUDGET_SIGNATURE}]`,
      ),
    );
    expect(out.content[1]).toEqual(text('caption'));
    expect(out.content[2]).toBe(result.content[2]);
    expect((out.content[3] as { text: string }).text).toMatch(
      /^\[audio \(audio\/wav, 2\.9 KiB\) omitted/,
    );
    const { result: roomy } = applyResultBudget(result, { maxBytes: 10, maxImageBytes: 10_000 });
    expect(roomy.content.filter((block) => block.type !== 'text')).toHaveLength(3);
  });

  it('drops a large structuredContent with a note naming its keys, keeps a small one', () => {
    const rows = Array.from({ length: 2000 }, (_, index) => ({ id: index, name: `row ${index}` }));
    const big: CallToolResult = {
      content: [text(JSON.stringify({ rows, total: 2000 }))],
      structuredContent: { rows, total: 2000 },
    };
    const dropped = applyResultBudget(big, { maxBytes: 8000 });
    expect(dropped.structuredContentDropped).toBe(true);
    expect('structuredContent' in dropped.result).toBe(false);
    expect((dropped.result.content.at(-1) as { text: string }).text).toMatch(
      /^\[structuredContent \(\d+\.\d KiB\) dropped: over the result budget; top-level keys: rows, total; mcp-host result budget\]$/,
    );
    expect(textLikeBytes(dropped.result)).toBeLessThanOrEqual(8000);
    expect('structuredContent' in big).toBe(true);

    const small: CallToolResult = {
      content: [text('x'.repeat(20_000))],
      structuredContent: { ok: true },
    };
    const kept = applyResultBudget(small, { maxBytes: 8000 });
    expect(kept.structuredContentDropped).toBe(false);
    expect(kept.result.structuredContent).toBe(small.structuredContent);
    expect(textLikeBytes(kept.result)).toBeLessThanOrEqual(8000);
  });

  it('keeps resource links, cuts embedded resource text, replaces large blobs', () => {
    const link: ContentBlock = { type: 'resource_link', uri: 'file:///big.log', name: 'big.log' };
    const embedded: ContentBlock = {
      type: 'resource',
      resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'ü'.repeat(10_000) },
    };
    const blob: ContentBlock = {
      type: 'resource',
      resource: { uri: 'file:///a.pdf', mimeType: 'application/pdf', blob: 'C'.repeat(9000) },
    };
    const result = deepFreeze<CallToolResult>({ content: [link, embedded, blob] });
    const { result: out } = applyResultBudget(result, { maxBytes: 3000, maxImageBytes: 5000 });
    expect(out.content[0]).toBe(link);
    const resource = (out.content[1] as { resource: { uri: string; text: string } }).resource;
    expect(resource.uri).toBe('file:///a.txt');
    expect(resource.text).toMatch(/^ü+\n…\[truncated: /);
    expect(out.content[2]).toEqual(
      text(
        `[resource file:///a.pdf (application/pdf, 8.8 KiB) omitted: over the 4.9 KiB per-item limit; ${RESULT_BUDGET_SIGNATURE}]`,
      ),
    );
    expect(textLikeBytes(out)).toBeLessThanOrEqual(3000);
  });

  it('keeps every mix of blocks within the budget (seeded random cases)', () => {
    let state = 7;
    const rng = () => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state / 2 ** 32;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
    const units = ['a', 'é', '€', '😀', '\n', '"'];
    for (let round = 0; round < 300; round++) {
      const content: ContentBlock[] = [];
      const count = 1 + Math.floor(rng() * 30);
      for (let index = 0; index < count; index++) {
        const size = Math.floor(rng() ** 3 * 20_000);
        const kind = pick(['text', 'text', 'text', 'image', 'resource', 'link']);
        if (kind === 'image') content.push(image(size));
        else if (kind === 'link')
          content.push({ type: 'resource_link', uri: `file:///${index}`, name: `${index}` });
        else {
          const value = pick(units).repeat(size);
          content.push(
            kind === 'text'
              ? text(value)
              : { type: 'resource', resource: { uri: `file:///${index}`, text: value } },
          );
        }
      }
      const result: CallToolResult =
        rng() < 0.3
          ? { content, structuredContent: { data: 'd'.repeat(Math.floor(rng() * 30_000)) } }
          : { content };
      const maxBytes = 1024 + Math.floor(rng() * 40_000);
      const maxImageBytes = Math.floor(rng() * 20_000);
      const outcome = applyResultBudget(result, { maxBytes, maxImageBytes });
      expect(outcome.originalBytes).toBe(resultByteLength(result));
      expect(textLikeBytes(outcome.result)).toBeLessThanOrEqual(maxBytes);
      for (const block of outcome.result.content)
        if (block.type === 'image') expect(block.data.length).toBeLessThanOrEqual(maxImageBytes);
      if (!outcome.truncated) expect(outcome.result).toBe(result);
    }
  });

  it('handles empty and odd results, and refuses a bad budget', () => {
    expect(applyResultBudget({ content: [] }, { maxBytes: 0 }).truncated).toBe(false);
    const odd = {
      content: [{ type: 'future', payload: 'p'.repeat(100) }],
    } as unknown as CallToolResult;
    expect(applyResultBudget(odd, { maxBytes: 1000 }).result).toBe(odd);
    expect(
      applyResultBudget({ content: [text('abc')] }, { maxBytes: 0 }).result.content,
    ).toHaveLength(1);
    for (const maxBytes of [-1, 1.5, Number.NaN, Infinity])
      expect(() => applyResultBudget({ content: [] }, { maxBytes })).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    expect(() => applyResultBudget({ content: [] }, { maxBytes: 1, maxImageBytes: -5 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});

describe('sizes', () => {
  it('utf8Length and utf8Prefix agree with Buffer', () => {
    for (const sample of ['', 'ascii', 'é€😀', 'lone \ud800 x', 'end \udbff', '\udc00start']) {
      expect(utf8Length(sample)).toBe(bytes(sample));
      for (let max = 0; max <= bytes(sample); max++) {
        const prefix = utf8Prefix(sample, max);
        expect(bytes(prefix)).toBeLessThanOrEqual(max);
        expect(sample.startsWith(prefix)).toBe(true);
      }
    }
    expect(utf8Prefix('a€', 3)).toBe('a');
    expect(utf8Prefix('😀', 3)).toBe('');
    expect(utf8Prefix('😀', 4)).toBe('😀');
  });

  it('jsonByteLength equals the UTF-8 length of JSON.stringify', () => {
    const values: unknown[] = [
      null,
      true,
      false,
      0,
      -1.5e-7,
      1e21,
      Number.NaN,
      'plain',
      'quote " backslash \\ newline \n tab \t bell \u0007 nul \u0000 del \u007f',
      'é € 😀 lone \ud800 \udfff',
      [],
      {},
      [1, 'two', undefined, () => 3, { a: undefined, b: null }],
      { nested: { deeper: [{ x: 'ü' }] }, skip: undefined, date: new Date(0) },
    ];
    for (const value of values) expect(jsonByteLength(value)).toBe(bytes(JSON.stringify(value)));
  });

  it('measures deep nesting without overflowing the stack', () => {
    let deep: unknown = 1;
    for (let depth = 0; depth < 100_000; depth++) deep = [deep];
    expect(jsonByteLength(deep)).toBe(200_001);
  });

  it('formats sizes in binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KiB');
    expect(formatBytes(1.2 * 1024 * 1024)).toBe('1.2 MiB');
    expect(formatBytes(4 * 1024 ** 3)).toBe('4.0 GiB');
  });
});
