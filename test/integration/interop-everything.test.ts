/**
 * The client against the official "everything" reference server over stdio: every tool that needs
 * no LLM, sampling and elicitation answered by test handlers, resources (list, templates, read,
 * subscribe and update notifications), prompts with arguments, completion and logging.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoggingMessageParams, ProgressNotificationParams } from '../../src/index.js';
import { connectScript, officialServers, type RunningClient } from '../helpers/mcp-servers.js';
import { SpecSchema } from '../helpers/spec-schema.js';

const { script, args } = officialServers.everything;
let server: RunningClient;
const sampled: unknown[] = [];
const elicited: unknown[] = [];

beforeAll(async () => {
  server = await connectScript('everything', script, args, {
    env: { EVERYTHING_CANARY_SECRET: 'not-a-real-secret' },
    handlers: {
      sampling: (params) => {
        sampled.push(params);
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
          elicited.push(params);
          return Promise.resolve({
            action: 'accept',
            content: { name: 'Ada', email: 'ada@example.com', age: 36 },
          });
        },
      },
    },
  });
});

afterAll(async () => {
  await server[Symbol.asyncDispose]();
});

describe('official everything server over stdio', () => {
  it('is detected as legacy with the newest legacy version, and reports its info', () => {
    const { client } = server;
    expect(client.era).toBe('legacy');
    expect(client.session?.version).toBe('2025-11-25');
    expect(client.session?.serverInfo?.name).toContain('everything');
    expect(client.session?.capabilities.tools).toBeDefined();
  });

  it('lists its tools, draft-07 schemas kept exactly as sent', async () => {
    const { items, excluded } = await server.client.listTools();
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
    const echo = await server.client.callTool('echo', { message: 'hello' });
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: hello' }]);
    const sum = await server.client.callTool('get-sum', { a: 2, b: 3 });
    expect(JSON.stringify(sum.content)).toContain('5');
  });

  it('returns images as image content', async () => {
    const result = await server.client.callTool('get-tiny-image', {});
    const image = result.content.find((c) => c.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect((image as { data: string }).data.length).toBeGreaterThan(100);
  });

  it('returns structured content that matches the output schema', async () => {
    await server.client.listTools();
    const result = await server.client.callTool('get-structured-content', { location: 'Chicago' });
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toMatchObject({ temperature: expect.any(Number) });
  });

  it('returns resource links, embedded resources and annotations', async () => {
    const links = await server.client.callTool('get-resource-links', { count: 2 });
    expect(links.content.filter((c) => c.type === 'resource_link').length).toBe(2);
    const reference = await server.client.callTool('get-resource-reference', {
      resourceType: 'Text',
      resourceId: 1,
    });
    expect(reference.content.some((c) => c.type === 'resource')).toBe(true);
    const annotated = await server.client.callTool('get-annotated-message', {
      messageType: 'error',
      includeImage: true,
    });
    expect(annotated.content.some((c) => c.annotations !== undefined)).toBe(true);
  });

  it('delivers progress for a long-running operation', async () => {
    const progress: ProgressNotificationParams[] = [];
    const result = await server.client.callTool(
      'trigger-long-running-operation',
      { duration: 0.3, steps: 3 },
      { onProgress: (p) => progress.push(p) },
    );
    expect(result.isError).not.toBe(true);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.at(-1)).toMatchObject({ progress: expect.any(Number), total: 3 });
  });

  it('answers sampling, elicitation and roots requests through the handlers', async () => {
    const sampling = await server.client.callTool('trigger-sampling-request', {
      prompt: 'capital of France?',
      maxTokens: 20,
    });
    expect(JSON.stringify(sampling.content)).toContain('sampled answer');
    expect(sampled.length).toBe(1);
    const elicitation = await server.client.callTool('trigger-elicitation-request', {});
    expect(JSON.stringify(elicitation.content)).toContain('Ada');
    expect(elicited.length).toBe(1);
    const roots = await server.client.callTool('get-roots-list', {});
    expect(JSON.stringify(roots.content)).toContain('file:///tmp/mcp-host-root');
  });

  it('gives the server only the allow-listed environment plus what was configured', async () => {
    const result = await server.client.callTool('get-env', {});
    const text = JSON.stringify(result.content);
    expect(text).toContain('EVERYTHING_CANARY_SECRET');
    expect(text).toContain('PATH');
    expect(text).not.toContain('VITEST');
  });

  it('lists, reads and templates resources', async () => {
    const { items } = await server.client.listResources();
    expect(items.length).toBeGreaterThan(0);
    const read = await server.client.readResource(items[0]!.uri);
    expect(read.contents[0]).toMatchObject({ uri: items[0]!.uri });
    const templates = await server.client.listResourceTemplates();
    expect(templates.items.map((t) => t.uriTemplate)).toContain(
      'demo://resource/dynamic/text/{resourceId}',
    );
    const dynamic = await server.client.readResource('demo://resource/dynamic/text/7');
    expect(dynamic.contents[0]?.text).toBeDefined();
  });

  it('subscribes to a resource and receives update notifications', async () => {
    const uri = 'demo://resource/dynamic/text/1';
    const updated = new Promise<string>((resolve) => {
      const subscription = server.client.onResourceUpdated(({ uri: changed }) => {
        if (changed !== uri) return;
        subscription.dispose();
        resolve(changed);
      });
    });
    await server.client.subscribeResource(uri);
    await server.client.callTool('toggle-subscriber-updates', {});
    expect(await updated).toBe(uri);
    await server.client.callTool('toggle-subscriber-updates', {});
    await server.client.unsubscribeResource(uri);
  });

  it('gets prompts with arguments and completes prompt arguments', async () => {
    const { items } = await server.client.listPrompts();
    expect(items.map((p) => p.name)).toContain('args-prompt');
    const prompt = await server.client.getPrompt('args-prompt', { city: 'Paris', state: 'IDF' });
    expect(JSON.stringify(prompt.messages)).toContain('Paris');
    const completion = await server.client.complete(
      { type: 'ref/prompt', name: 'completable-prompt' },
      { name: 'department', value: 'E' },
    );
    expect(completion.completion.values.length).toBeGreaterThan(0);
  });

  it('sets the log level and receives log messages', async () => {
    await server.client.setLoggingLevel('debug');
    const message = new Promise<LoggingMessageParams>((resolve) => {
      const subscription = server.client.onLogMessage((m) => {
        subscription.dispose();
        resolve(m);
      });
    });
    await server.client.callTool('toggle-simulated-logging', {});
    expect(await message).toMatchObject({ level: expect.any(String) });
    await server.client.callTool('toggle-simulated-logging', {});
  });

  it('answers ping', async () => {
    await expect(server.client.ping()).resolves.toBeUndefined();
  });

  it('sent only messages that validate against the schema of their revision', () => {
    const transport = server.transports.at(-1)!;
    // The era probe is a modern request by design (2026-07-28 rules); everything after it is legacy.
    const [probe, ...legacy] = transport.sent;
    expect(probe).toMatchObject({ method: 'server/discover' });
    expect(modern.check(probe!)).toEqual([]);
    expect(legacy.length).toBeGreaterThan(20);
    const problems = legacy.flatMap((message) => schema.check(message, transport.inboundMethods));
    expect(problems).toEqual([]);
  });
});

const schema = new SpecSchema('2025-11-25');
const modern = new SpecSchema('2026-07-28');
