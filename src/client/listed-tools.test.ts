import { describe, expect, it, vi } from 'vitest';
import { connect, echo } from '../../test/helpers/mcp-client-harness.js';

// Records whether ajv is loaded (it still works): a listing must not load it, a call may.
const loaded = vi.hoisted((): string[] => []);
vi.mock('ajv', async (importOriginal) => {
  loaded.push('ajv');
  return { default: await importOriginal() };
});
vi.mock('ajv/dist/2020.js', async (importOriginal) => {
  loaded.push('ajv/dist/2020.js');
  return { default: await importOriginal() };
});

const weather = {
  name: 'weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  outputSchema: {
    type: 'object',
    properties: { temperature: { type: 'number' } },
    required: ['temperature'],
  },
  handler: (args: Record<string, unknown>) => ({
    content: [],
    structuredContent: { temperature: args.bad === true ? 'hot' : 21 },
  }),
};

// Not valid: `[` is not a regex. The listing's check lets this one through (docs/architecture.md, "Tool schemas").
const lenient = { type: 'object', patternProperties: { '[': {} } };

describe('ListedTools', () => {
  it('lists tools with schemas without loading ajv; the first call of a tool with an outputSchema compiles it and checks results', async () => {
    await using h = await connect({
      era: 'legacy',
      tools: [echo, weather, { name: 'broken', inputSchema: { type: 42 } }],
    });
    await h.client.connect();
    const listing = await h.client.listTools();
    expect(listing.tools.map((t) => t.name)).toEqual(['echo', 'weather']);
    expect(listing.excluded).toEqual([
      {
        name: 'broken',
        reason: expect.stringMatching(
          /^its inputSchema is unusable \(schema is not valid JSON Schema 2020-12: \/type /,
        ) as unknown,
      },
    ]);
    expect(loaded).toEqual([]);

    expect(await h.client.callTool('weather', {})).toMatchObject({
      structuredContent: { temperature: 21 },
    });
    expect(loaded.length).toBeGreaterThan(0);
    const mismatch = await h.client.callTool('weather', { bad: true });
    expect(mismatch.isError).toBe(true);
    expect(mismatch.content[0]).toMatchObject({
      text: expect.stringMatching(
        /does not match the tool's outputSchema: .*temperature must be number/,
      ) as unknown,
    });
  });

  it('refuses, unsent, a call to a tool whose outputSchema passed the listing but does not compile', async () => {
    await using h = await connect({
      era: 'legacy',
      tools: [{ ...weather, name: 'odd', outputSchema: lenient }],
    });
    await h.client.connect();
    expect((await h.client.listTools()).tools.map((t) => t.name)).toEqual(['odd']);
    for (let attempt = 0; attempt < 2; attempt++)
      await expect(h.client.callTool('odd', {})).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        serverName: 'fake',
        tool: 'odd',
        message: expect.stringMatching(
          /^server 'fake': tool 'odd' is excluded: its outputSchema is unusable \(schema cannot be compiled: pattern "\[" /,
        ) as unknown,
      });
    expect(h.fake.methods()).not.toContain('tools/call');
  });
});
