import { describe, expect, it } from 'vitest';
import { McpHostError } from '../errors/mcp-host-error.js';
import { applyResultBudget } from '../host/calls/result-budget.js';
import type { HostTool } from '../host/host-tool.js';
import { toModelError, toModelResult } from './model-result.js';

const tool: HostTool = {
  name: 'mcp__s__t',
  originalName: 't',
  server: 's',
  inputSchema: { type: 'object' },
};

describe('toModelResult', () => {
  it('keeps media as media, links as links, and embedded resources as text or files', () => {
    const result = toModelResult({
      content: [
        { type: 'text', text: 'one' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
        { type: 'resource', resource: { uri: 'mem://n', text: 'note' } },
        {
          type: 'resource',
          resource: { uri: 'mem://p', blob: 'AAAA', mimeType: 'application/pdf' },
        },
        { type: 'resource', resource: { uri: 'mem://i', blob: 'AAAA', mimeType: 'image/gif' } },
        { type: 'from-the-future', x: 1 },
      ] as never,
    });
    expect(result.parts).toEqual([
      { type: 'text', text: 'one' },
      { type: 'image', mimeType: 'image/png', data: 'AAAA' },
      { type: 'audio', mimeType: 'audio/wav', data: 'AAAA' },
      { type: 'link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
      { type: 'text', text: 'Resource mem://n:\nnote' },
      { type: 'file', mimeType: 'application/pdf', data: 'AAAA', uri: 'mem://p' },
      { type: 'image', mimeType: 'image/gif', data: 'AAAA' },
      { type: 'text', text: '{"type":"from-the-future","x":1}' },
    ]);
    expect(result.isError).toBe(false);
    // Text-only providers get notes, never the base64 itself.
    expect(result.text).toContain('[image image/png, 3 bytes]');
    expect(result.text).toContain('[resource a.txt: file:///a.txt (text/plain)]');
    expect(result.text).not.toContain('AAAA');
  });

  it('prefers structuredContent when the tool declares an output schema', () => {
    const raw = {
      content: [
        { type: 'text' as const, text: '{"n": 1}' },
        { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' },
      ],
      structuredContent: { n: 1 },
    };
    const withSchema = toModelResult(raw, { ...tool, outputSchema: { type: 'object' } });
    expect(withSchema.structured).toEqual({ n: 1 });
    expect(withSchema.parts).toEqual([
      { type: 'text', text: '{"n":1}' },
      { type: 'image', mimeType: 'image/png', data: 'AAAA' },
    ]);
    const without = toModelResult(raw, tool);
    expect(without.structured).toBeUndefined();
    expect(without.parts[0]).toEqual({ type: 'text', text: '{"n": 1}' });
  });

  it('carries isError, an empty result, and the budget cut', () => {
    expect(toModelResult({ content: [], isError: true })).toMatchObject({
      isError: true,
      parts: [{ type: 'text', text: '' }],
    });
    const { result } = applyResultBudget(
      { content: [{ type: 'text', text: 'x'.repeat(5000) }] },
      { maxBytes: 1000 },
    );
    const cut = toModelResult(result, tool);
    expect(cut.truncated).toMatchObject({ maxBytes: 1000, originalBytes: 5000 });
    expect(cut.text).toContain('mcp-host result budget');
  });

  it('makes an error result of a host failure', () => {
    const error = new McpHostError('TOOL_DENIED', "tool 'x' was refused: not permitted");
    expect(toModelError(error)).toEqual({
      isError: true,
      parts: [{ type: 'text', text: "Error: tool 'x' was refused: not permitted" }],
      text: "Error: tool 'x' was refused: not permitted",
      error,
    });
  });
});
