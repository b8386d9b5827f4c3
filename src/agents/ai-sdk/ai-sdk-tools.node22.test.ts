import { describe, expect, it } from 'vitest';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { toModelError, toModelResult } from '../model-result.js';
import { toAiSdkOutput } from './ai-sdk-tools.js';

describe('toAiSdkOutput', () => {
  it('hands text alone as text', () => {
    const result = toModelResult({
      content: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
    });
    expect(toAiSdkOutput(result)).toEqual({ type: 'text', value: 'one\n\ntwo' });
  });

  it('hands media as file parts with their bytes, files with a name, links as text', () => {
    const result = toModelResult({
      content: [
        { type: 'text', text: 'look' },
        { type: 'image', data: 'iVBO', mimeType: 'image/png' },
        { type: 'audio', data: 'UklG', mimeType: 'audio/wav' },
        {
          type: 'resource',
          resource: { uri: 'file:///tmp/report.pdf', blob: 'JVBE', mimeType: 'application/pdf' },
        },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
      ],
    });
    const output = toAiSdkOutput(result);
    expect(output).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'look' },
        { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBO' } },
        { type: 'file', mediaType: 'audio/wav', data: { type: 'data', data: 'UklG' } },
        {
          type: 'file',
          mediaType: 'application/pdf',
          data: { type: 'data', data: 'JVBE' },
          filename: 'report.pdf',
        },
        { type: 'text', text: '[resource a.txt: file:///a.txt (text/plain)]' },
      ],
    });
    // The bytes travel once, as media: never pasted into a text part.
    const texts = output.type === 'content' ? output.value.filter((p) => p.type === 'text') : [];
    expect(JSON.stringify(texts)).not.toMatch(/iVBO|UklG|JVBE/);
  });

  it("names a file by its URI when the URI's path has no name", () => {
    const output = toAiSdkOutput(
      toModelResult({
        content: [
          { type: 'resource', resource: { uri: 'mem:blob', blob: 'AA==', mimeType: 'x/y' } },
        ],
      }),
    );
    expect(output).toMatchObject({ type: 'content', value: [{ filename: 'mem:blob' }] });
  });

  it('hands an error result and a refused call as error-text', () => {
    const failed = toModelResult({ content: [{ type: 'text', text: 'boom' }], isError: true });
    expect(toAiSdkOutput(failed)).toEqual({ type: 'error-text', value: 'boom' });
    const refused = toModelError(new McpHostError('TOOL_DENIED', "tool 't' was refused"));
    expect(toAiSdkOutput(refused)).toEqual({
      type: 'error-text',
      value: "Error: tool 't' was refused",
    });
  });

  it('keeps the truncation marker the host put in the text', () => {
    const result = toModelResult({
      content: [{ type: 'text', text: 'abc\n[truncated by mcp-host]' }],
      _meta: {
        'io.mcp-host/truncated': {
          originalBytes: 100,
          keptBytes: 30,
          maxBytes: 30,
          structuredContentDropped: false,
        },
      },
    });
    expect(result.truncated?.originalBytes).toBe(100);
    expect(toAiSdkOutput(result)).toEqual({
      type: 'text',
      value: 'abc\n[truncated by mcp-host]',
    });
  });
});
