import { describe, expect, it } from 'vitest';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { toModelError, toModelResult } from '../model-result.js';
import { toMastraOutput } from './to-mastra-output.js';

describe('toMastraOutput', () => {
  it('hands text alone as text', () => {
    const result = toModelResult({ content: [{ type: 'text', text: 'only text' }] });
    expect(toMastraOutput(result)).toEqual({ type: 'text', value: 'only text' });
  });

  it('hands images, audio and files as media parts with their bytes, links as text', () => {
    const result = toModelResult({
      content: [
        { type: 'text', text: 'look' },
        { type: 'image', data: 'iVBO', mimeType: 'image/png' },
        { type: 'audio', data: 'UklG', mimeType: 'audio/wav' },
        {
          type: 'resource',
          resource: { uri: 'file:///tmp/report.pdf', blob: 'JVBE', mimeType: 'application/pdf' },
        },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
      ],
    });
    expect(toMastraOutput(result)).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'look' },
        { type: 'media', data: 'iVBO', mediaType: 'image/png' },
        { type: 'media', data: 'UklG', mediaType: 'audio/wav' },
        { type: 'media', data: 'JVBE', mediaType: 'application/pdf' },
        { type: 'text', text: '[resource a.txt: file:///a.txt]' },
      ],
    });
  });

  it('hands an error result and a refused call as error-text', () => {
    const failed = toModelResult({
      content: [
        { type: 'text', text: 'boom' },
        { type: 'image', data: 'iVBO', mimeType: 'image/png' },
      ],
      isError: true,
    });
    expect(toMastraOutput(failed)).toEqual({
      type: 'error-text',
      value: 'boom\n\n[image image/png, 3 bytes]',
    });
    const refused = toModelError(new McpHostError('TOOL_NOT_FOUND', "no tool is named 'x'"));
    expect(toMastraOutput(refused)).toEqual({
      type: 'error-text',
      value: "Error: no tool is named 'x'",
    });
  });
});
