/**
 * The primitive tests of the client against the official "everything" reference server, shared by
 * the transports it runs over: stdio (interop-everything.test.ts) and Streamable HTTP
 * (http-everything.test.ts). Every tool that needs no LLM, sampling and elicitation answered by
 * test handlers, resources (list, templates, read, subscribe and update notifications), prompts
 * with arguments, completion and logging; every message the client sent validates against the
 * schema of its revision.
 */
import { expect, it } from 'vitest';
import type {
  LoggingMessageParams,
  ProgressNotificationParams,
  ServerInputHandlers,
} from '../../src/index.js';
import type { RunningClient } from './mcp-servers.js';
import { within } from './mcp-fixtures.js';
import { SpecSchema } from './spec-schema.js';

/** What the test handlers were asked. */
export interface EverythingAsked {
  sampled: unknown[];
  elicited: unknown[];
}

/** Handlers answering the everything server's sampling, elicitation and roots requests. */
export function everythingHandlers(asked: EverythingAsked): ServerInputHandlers {
  return {
    sampling: (params) => {
      asked.sampled.push(params);
      return Promise.resolve({
        role: 'assistant',
        content: { type: 'text', text: 'sampled answer' },
        model: 'test-model',
        stopReason: 'endTurn',
      });
    },
    roots: () => [{ uri: 'file:///tmp/mcp-host-root', name: 'test root' }],
    elicitation: {
      form: (params) => {
        asked.elicited.push(params);
        return Promise.resolve({
          action: 'accept',
          content: { name: 'Ada', email: 'ada@example.com', age: 36 },
        });
      },
    },
  };
}

/**
 * Registers the primitive tests (call it inside a `describe`) for the connected client `get()`
 * returns, whose server's handlers are `everythingHandlers(asked)`.
 */
export function everythingSuite(get: () => RunningClient, asked: EverythingAsked): void {
  it('is detected as legacy with the newest legacy version, and reports its info', () => {
    const { client } = get();
    expect(client.era).toBe('legacy');
    expect(client.session?.version).toBe('2025-11-25');
    expect(client.session?.serverInfo?.name).toContain('everything');
    expect(client.session?.capabilities.tools).toBeDefined();
  });

  it('lists its tools, draft-07 schemas kept exactly as sent', async () => {
    const { tools: items, excluded } = await get().client.listTools();
    const names = items.map((t) => t.name);
    for (const expected of [
      'echo',
      'get-sum',
      'get-tiny-image',
      'get-structured-content',
      'trigger-sampling-request',
      'trigger-elicitation-request',
      'get-roots-list',
    ]) {
      expect(names).toContain(expected);
    }
    expect(excluded).toEqual([]);
    const echo = items.find((t) => t.name === 'echo')!;
    expect(echo.inputSchema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(echo.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('calls echo and get-sum', async () => {
    const echo = await get().client.callTool('echo', { message: 'hello' });
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: hello' }]);
    const sum = await get().client.callTool('get-sum', { a: 2, b: 3 });
    expect(JSON.stringify(sum.content)).toContain('5');
  });

  it('returns images as image content', async () => {
    const result = await get().client.callTool('get-tiny-image', {});
    const image = result.content.find((c) => c.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect((image as { data: string }).data.length).toBeGreaterThan(100);
  });

  it('returns structured content that matches the output schema', async () => {
    await get().client.listTools();
    const result = await get().client.callTool('get-structured-content', { location: 'Chicago' });
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toMatchObject({ temperature: expect.any(Number) });
  });

  it('returns resource links, embedded resources and annotations', async () => {
    const links = await get().client.callTool('get-resource-links', { count: 2 });
    expect(links.content.filter((c) => c.type === 'resource_link').length).toBe(2);
    const reference = await get().client.callTool('get-resource-reference', {
      resourceType: 'Text',
      resourceId: 1,
    });
    expect(reference.content.some((c) => c.type === 'resource')).toBe(true);
    const annotated = await get().client.callTool('get-annotated-message', {
      messageType: 'error',
      includeImage: true,
    });
    expect(annotated.content.some((c) => c.annotations !== undefined)).toBe(true);
  });

  it('delivers progress for a long-running operation', async () => {
    const progress: ProgressNotificationParams[] = [];
    const result = await get().client.callTool(
      'trigger-long-running-operation',
      { duration: 0.3, steps: 3 },
      { onProgress: (p) => progress.push(p) },
    );
    expect(result.isError).not.toBe(true);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.at(-1)).toMatchObject({ progress: expect.any(Number), total: 3 });
  });

  it('answers sampling, elicitation and roots requests through the handlers', async () => {
    const sampling = await get().client.callTool('trigger-sampling-request', {
      prompt: 'capital of France?',
      maxTokens: 20,
    });
    expect(JSON.stringify(sampling.content)).toContain('sampled answer');
    expect(asked.sampled.length).toBe(1);
    const elicitation = await get().client.callTool('trigger-elicitation-request', {});
    expect(JSON.stringify(elicitation.content)).toContain('Ada');
    expect(asked.elicited.length).toBe(1);
    const roots = await get().client.callTool('get-roots-list', {});
    expect(JSON.stringify(roots.content)).toContain('file:///tmp/mcp-host-root');
  });

  it('lists, reads and templates resources', async () => {
    const { resources: items } = await get().client.listResources();
    expect(items.length).toBeGreaterThan(0);
    const read = await get().client.readResource(items[0]!.uri);
    expect(read.contents[0]).toMatchObject({ uri: items[0]!.uri });
    const templates = await get().client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toContain(
      'demo://resource/dynamic/text/{resourceId}',
    );
    const dynamic = await get().client.readResource('demo://resource/dynamic/text/7');
    expect(dynamic.contents[0]?.text).toBeDefined();
  });

  it('subscribes to a resource and receives update notifications', async () => {
    const uri = 'demo://resource/dynamic/text/1';
    const updated = new Promise<string>((resolve) => {
      const subscription = get().client.onResourceUpdated(({ uri: changed }) => {
        if (changed !== uri) return;
        subscription.dispose();
        resolve(changed);
      });
    });
    await get().client.subscribeResource(uri);
    await get().client.callTool('toggle-subscriber-updates', {});
    expect(await within(updated, 15_000, 'resource update')).toBe(uri);
    await get().client.callTool('toggle-subscriber-updates', {});
    await get().client.unsubscribeResource(uri);
  });

  it('gets prompts with arguments and completes prompt arguments', async () => {
    const { prompts: items } = await get().client.listPrompts();
    expect(items.map((p) => p.name)).toContain('args-prompt');
    const prompt = await get().client.getPrompt('args-prompt', { city: 'Paris', state: 'IDF' });
    expect(JSON.stringify(prompt.messages)).toContain('Paris');
    const completion = await get().client.complete(
      { type: 'ref/prompt', name: 'completable-prompt' },
      { name: 'department', value: 'E' },
    );
    expect(completion.completion.values.length).toBeGreaterThan(0);
  });

  it('sets the log level and receives log messages', async () => {
    await get().client.setLoggingLevel('debug');
    const message = new Promise<LoggingMessageParams>((resolve) => {
      const subscription = get().client.onLogMessage((m) => {
        subscription.dispose();
        resolve(m);
      });
    });
    await get().client.callTool('toggle-simulated-logging', {});
    expect(await within(message, 15_000, 'log message')).toMatchObject({
      level: expect.any(String),
    });
    await get().client.callTool('toggle-simulated-logging', {});
  });

  it('answers ping', async () => {
    await expect(get().client.ping()).resolves.toBeUndefined();
  });

  it('sent only messages that validate against the schema of their revision', () => {
    const transport = get().transports.at(-1)!;
    // The era probe is a modern request by design (2026-07-28 rules); everything after it is legacy.
    const [probe, ...legacy] = transport.sent;
    expect(probe).toMatchObject({ method: 'server/discover' });
    expect(modern.check(probe!)).toEqual([]);
    expect(legacy.length).toBeGreaterThan(20);
    const problems = legacy.flatMap((message) => schema.check(message, transport.inboundMethods));
    expect(problems).toEqual([]);
  });
}

const schema = new SpecSchema('2025-11-25');
const modern = new SpecSchema('2026-07-28');
