/**
 * What the adapters' unit tests share: tiny media payloads, and the fake tools their fake servers
 * are made of (`fake()` from the host's test helpers). Not part of the package's API.
 */
import type { JsonObject } from '../jsonrpc/message.js';
// Test helper: like the tests, it may reach across layers (the shipped fakes of src/testing).
// eslint-disable-next-line no-restricted-imports
import type { FakeTool } from '../testing/index.js';

/** The first bytes of a PNG, a PDF and a WAV file, base64. */
export const PIXEL = 'iVBORw0KGgo=';
export const PDF = 'JVBERi0xLjQK';
export const WAV = 'UklGRiQAAABXQVZF';

/** A tool taking `{ text?: string }` that answers with `handler`. */
export const fakeTool = (
  name: string,
  handler: FakeTool['handler'],
  description?: string,
): FakeTool => ({
  name,
  ...(description === undefined ? {} : { description }),
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  handler,
});

/** `echo`: its `text` back. */
export const echoTool = (): FakeTool =>
  fakeTool(
    'echo',
    (args: JsonObject) => ({ content: [{ type: 'text', text: String(args.text) }] }),
    'echoes',
  );

/** `fails`: an `isError` result. */
export const failingTool = (): FakeTool =>
  fakeTool('fails', () => ({ isError: true, content: [{ type: 'text', text: 'no such city' }] }));

/** `slow`: answers never; rejects once the call is cancelled. */
export const slowTool = (): FakeTool =>
  fakeTool(
    'slow',
    (_args, context) =>
      new Promise((_resolve, reject) => {
        context.signal.addEventListener('abort', () => reject(new Error('aborted')), {
          once: true,
        });
      }),
  );
