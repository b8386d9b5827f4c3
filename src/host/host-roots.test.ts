import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import type { JsonRpcError } from '../errors/json-rpc-error.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import type { CallToolResult, Root } from '../protocol/types.js';
import type { FakeTool } from '../testing/index.js';
import { fake, host } from './host-test-helpers.js';
import type { McpHost } from './mcp-host.js';

const SANDBOX: Root = { uri: 'file:///srv/sandbox', name: 'sandbox' };
const DOCS: Root = { uri: 'file:///srv/docs' };

/** Legacy: a tool that sends `roots/list` to the client and returns the answer (or the error). */
const legacyRoots: FakeTool = {
  name: 'roots',
  inputSchema: { type: 'object' },
  handler: async (_args, context) => {
    try {
      return text(await context.request('roots/list'));
    } catch (error) {
      return { ...text({ error: (error as JsonRpcError).code }), isError: true };
    }
  },
};

/** Modern: a tool that asks for the roots with `input_required` and returns what came back. */
const modernRoots: FakeTool = {
  name: 'roots',
  inputSchema: { type: 'object' },
  handler: (_args, { inputResponses }) => {
    if (inputResponses !== undefined) return text(inputResponses.roots);
    return { resultType: 'input_required', inputRequests: { roots: { method: 'roots/list' } } };
  },
};

function text(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

async function rootsOf(h: McpHost, server: string): Promise<unknown> {
  const result = await h.callTool(`mcp__${server}__roots`);
  return JSON.parse((result.content[0] as { text: string }).text);
}

function initializeCapabilities(server: { received: { method: string; params?: unknown }[] }) {
  const init = server.received.find((r) => r.method === 'initialize');
  return (init?.params as { capabilities?: unknown } | undefined)?.capabilities;
}

/** A legacy and a modern server that ask for roots, and a legacy one with roots of its own. */
function threeServers() {
  const legacy = fake('legacy', { tools: [legacyRoots] });
  const modern = fake('modern', { era: 'modern', tools: [modernRoots] });
  const own = fake(
    'own',
    { tools: [legacyRoots] },
    { client: { handlers: { roots: () => [DOCS] } } },
  );
  return { legacy, modern, own, servers: [legacy.definition, modern.definition, own.definition] };
}

describe('host-wide roots', () => {
  it('answers them to legacy and modern servers without roots of their own; a server’s own handler wins', async () => {
    await using _guard = leakGuard();
    const { legacy, servers } = threeServers();
    await using h = await host({ roots: [SANDBOX], servers });
    expect(initializeCapabilities(legacy.servers[0]!)).toEqual({ roots: { listChanged: true } });
    expect(await rootsOf(h, 'legacy')).toEqual({ roots: [SANDBOX] });
    expect(await rootsOf(h, 'modern')).toEqual({ roots: [SANDBOX] });
    expect(await rootsOf(h, 'own')).toEqual({ roots: [DOCS] });
  });

  it('without them the roots capability is not advertised and roots/list is refused', async () => {
    await using _guard = leakGuard();
    const legacy = fake('legacy', { tools: [legacyRoots] });
    await using h = await host({ servers: [legacy.definition] });
    expect(initializeCapabilities(legacy.servers[0]!)).toEqual({});
    const result = await h.callTool('mcp__legacy__roots');
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ error: -32601 });
  });

  it('setRoots: connected legacy servers given them hear roots/list_changed and then see the new ones', async () => {
    await using _guard = leakGuard();
    const { legacy, modern, own, servers } = threeServers();
    await using h = await host({ roots: [SANDBOX], servers });
    const given = [DOCS];
    h.setRoots(given);
    given.push(SANDBOX); // the host keeps its own copy
    // The notification goes out before the call that follows it on the same connection.
    expect(await rootsOf(h, 'legacy')).toEqual({ roots: [DOCS] });
    const methods = legacy.servers[0]!.methods();
    expect(methods.filter((m) => m === 'notifications/roots/list_changed')).toHaveLength(1);
    expect(methods.slice(-2)).toEqual(['notifications/roots/list_changed', 'tools/call']);
    expect(await rootsOf(h, 'modern')).toEqual({ roots: [DOCS] });
    expect(modern.servers[0]!.methods()).not.toContain('notifications/roots/list_changed');
    await rootsOf(h, 'own');
    expect(own.servers[0]!.methods()).not.toContain('notifications/roots/list_changed');
  });

  it('refuses roots that are not file:// URIs with INVALID_ARGUMENT naming the entry', async () => {
    await using _guard = leakGuard();
    const refusal = async (make: () => unknown): Promise<McpHostError> => {
      try {
        await make();
      } catch (error) {
        expect(error).toBeInstanceOf(McpHostError);
        expect((error as McpHostError).code).toBe('INVALID_ARGUMENT');
        return error as McpHostError;
      }
      throw new Error('the roots were taken');
    };
    const given = (roots: unknown) => () => host({ roots: roots as Root[] });
    expect((await refusal(given([SANDBOX, { uri: 'https://example.com/x' }]))).message).toBe(
      'roots[1]: the uri must be a file:// URI',
    );
    expect((await refusal(given([{ name: 'no uri' }]))).message).toContain('roots[0]');
    expect((await refusal(given('file:///x'))).message).toContain('a list');
    await using h = await host({});
    const late = await refusal(() => h.setRoots([{ uri: 'file:///ok' }, { uri: 'C:\\x' }]));
    expect(late.message).toContain('roots[1]');
  });
});
