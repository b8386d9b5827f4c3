import type { ResponseFunctionToolCall } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { fake, host } from '../../host/host-test-helpers.js';
import { PIXEL, PDF, echoTool, failingTool, fakeTool, slowTool } from '../agent-test-fixtures.js';
import type { ModelToolResult } from '../model-result.js';
import { openaiResponsesTools } from './openai-responses-tools.js';

function server() {
  return fake('alpha', {
    tools: [
      echoTool(),
      fakeTool('picture', () => ({
        content: [
          { type: 'text', text: 'here it is' },
          { type: 'image', data: PIXEL, mimeType: 'image/png' },
          { type: 'text', text: 'and a report' },
          { type: 'resource_link', uri: 'file:///docs/notes.md', name: 'notes' },
          {
            type: 'resource',
            resource: { uri: 'file:///docs/report.pdf', mimeType: 'application/pdf', blob: PDF },
          },
        ],
      })),
      fakeTool('broken-picture', () => ({
        isError: true,
        content: [{ type: 'image', data: PIXEL, mimeType: 'image/png' }],
      })),
      failingTool(),
      slowTool(),
    ],
  });
}

const call = (callId: string, name: string, args: unknown = {}): ResponseFunctionToolCall => ({
  type: 'function_call',
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
});

describe('openaiResponsesTools', () => {
  it('offers the host tools as Responses function tools with their schema and strictness', async () => {
    await using h = await host({ servers: [server().definition] });
    const responses = openaiResponsesTools(h);
    expect(responses.toolset.provider).toBe('openai-strict');
    expect(responses.tools[0]).toEqual({
      type: 'function',
      name: 'mcp__alpha__echo',
      description: 'echoes',
      parameters: responses.toolset.tools[0]!.inputSchema,
      strict: responses.toolset.tools[0]!.strict,
    });
    expect(responses.tools[1]).not.toHaveProperty('description');
  });

  it('answers every function call of an output, in order: text as a string, media as parts', async () => {
    await using h = await host({ servers: [server().definition] });
    const responses = openaiResponsesTools(h);
    const outputs = await responses.callAll([
      { type: 'reasoning', id: 'r1', summary: [] },
      call('c1', 'mcp__alpha__picture'),
      {
        type: 'message',
        id: 'm1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'calling', annotations: [] }],
      },
      call('c2', 'mcp__alpha__echo', { text: 'hi' }),
    ]);
    expect(outputs).toEqual([
      {
        type: 'function_call_output',
        call_id: 'c1',
        output: [
          { type: 'input_text', text: 'here it is' },
          { type: 'input_image', image_url: `data:image/png;base64,${PIXEL}` },
          {
            type: 'input_text',
            text: 'and a report\n\n[resource notes: file:///docs/notes.md]',
          },
          {
            type: 'input_file',
            filename: 'report.pdf',
            file_data: `data:application/pdf;base64,${PDF}`,
          },
        ],
      },
      { type: 'function_call_output', call_id: 'c2', output: 'hi' },
    ]);
  });

  it('starts the output of a failure with an error marker, media or not', async () => {
    await using h = await host({ servers: [server().definition] });
    const results: ModelToolResult[] = [];
    const responses = openaiResponsesTools(h, { onResult: (result) => results.push(result) });
    expect(await responses.call(call('c1', 'mcp__alpha__fails'))).toEqual({
      type: 'function_call_output',
      call_id: 'c1',
      output: 'Error: no such city',
    });
    expect(await responses.call(call('c2', 'mcp__alpha__broken-picture'))).toEqual({
      type: 'function_call_output',
      call_id: 'c2',
      output: [
        { type: 'input_text', text: 'Error: the tool failed and said nothing more' },
        { type: 'input_image', image_url: `data:image/png;base64,${PIXEL}` },
      ],
    });
    const missing = await responses.call(call('c3', 'nope'));
    expect(missing.output).toMatch(/^Error: no tool is named 'nope'/);
    expect(results.map((r) => [r.isError, r.error?.code])).toEqual([
      [true, undefined],
      [true, undefined],
      [true, 'TOOL_NOT_FOUND'],
    ]);
  });

  it('passes its abort signal to the calls', async () => {
    await using h = await host({ servers: [server().definition] });
    const controller = new AbortController();
    const pending = openaiResponsesTools(h).callAll([call('c1', 'mcp__alpha__slow')], {
      signal: controller.signal,
    });
    controller.abort(new Error('user stopped'));
    await expect(pending).rejects.toThrow();
  });
});
