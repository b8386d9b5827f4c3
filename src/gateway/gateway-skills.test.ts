import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { SKILLS_EXTENSION } from '../client/skills/skill-entry.js';
import { JsonRpcError } from '../errors/json-rpc-error.js';
import { fake, host } from '../host/host-test-helpers.js';
import type { McpHost } from '../host/mcp-host.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { JsonRpcPeer } from '../jsonrpc/peer.js';
import { mcpPeerConventions } from '../protocol/conventions.js';
import { createLinkedTransports } from '../transport/in-memory.js';
import { createGateway, type GatewayOptions } from './gateway.js';

const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** A modern request's `_meta`. */
const MODERN = {
  _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  },
};

/** A skill at `skill://<name>/`: SKILL.md and `references/GUIDE.md`, each with its text. */
function skill(name: string, body = `Do ${name}.`) {
  const root = `skill://${name}`;
  const files: Record<string, string> = {
    [`${root}/SKILL.md`]: `---\nname: ${name}\ndescription: the ${name} skill\n---\n${body}\n`,
    [`${root}/references/GUIDE.md`]: `# ${name} guide\n`,
  };
  const entry: JsonObject = {
    uri: `${root}/SKILL.md`,
    frontmatter: { name, description: `the ${name} skill` },
    resources: Object.entries(files).map(([uri, text]) => ({
      uri,
      digest: digestOf(text),
      size: Buffer.byteLength(text),
    })),
  };
  return { root, uri: `${root}/SKILL.md`, files, entry };
}

/**
 * A server of the skills extension (`directoryRead` unless told otherwise) serving `skills`:
 * `skills/list`, `skills/get`, `resources/directory/read`, and reads of every file (only each
 * SKILL.md is in `resources/list`, as the official SDK's catalog does).
 */
function skillServer(
  name: string,
  skills: ReturnType<typeof skill>[],
  options: { era?: 'legacy' | 'modern'; directoryRead?: boolean } = {},
) {
  const files = Object.assign({}, ...skills.map((s) => s.files)) as Record<string, string>;
  const invalid = (message: string) => new JsonRpcError(-32602, message);
  return fake(name, {
    era: options.era ?? 'legacy',
    tools: [],
    capabilities: {
      resources: {},
      extensions: {
        [SKILLS_EXTENSION]: options.directoryRead === false ? {} : { directoryRead: true },
      },
    },
    resources: skills.map((s) => ({ uri: s.uri, name: String(s.entry.uri), text: '' })),
    handlers: {
      'skills/list': () => ({ skills: skills.map((s) => s.entry) }),
      'skills/get': (params) => {
        const found = skills.find((s) => s.uri === params.uri);
        if (found === undefined) throw invalid(`No skill is served at ${String(params.uri)}`);
        return { skill: found.entry };
      },
      'resources/read': (params) => {
        const text = files[String(params.uri)];
        if (text === undefined) throw new JsonRpcError(-32002, 'Resource not found');
        return { contents: [{ uri: params.uri, mimeType: 'text/markdown', text }] };
      },
      'resources/directory/read': (params) => {
        const found = skills.find((s) => params.uri === s.root);
        if (found === undefined) throw invalid(`${String(params.uri)} is not a directory`);
        const children = [
          { uri: found.uri, name: 'SKILL.md', mimeType: 'text/markdown' },
          { uri: `${found.root}/references`, name: 'references', mimeType: 'inode/directory' },
        ];
        // Two pages, to show the cursor goes through to this server and back.
        return params.cursor === 'second'
          ? { resources: children.slice(1) }
          : { resources: children.slice(0, 1), nextCursor: 'second' };
      },
    },
  });
}

/** A gateway over `h` on one end of an in-memory pair, a raw JSON-RPC client on the other. */
async function connect(h: McpHost, options: Partial<GatewayOptions> = {}) {
  const gateway = createGateway({ host: h, ...options });
  const [clientEnd, gatewayEnd] = createLinkedTransports();
  const served = gateway.serve(gatewayEnd);
  const client = new JsonRpcPeer(clientEnd, { conventions: mcpPeerConventions });
  await client.start();
  const request = <T = JsonObject>(method: string, params?: JsonObject) =>
    client.request<T>(method, params);
  return {
    request,
    modern: <T = JsonObject>(method: string, params: JsonObject = {}) =>
      client.request<T>(method, { ...params, ...MODERN }),
    async initialize() {
      const result = await request<{ capabilities: JsonObject }>('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'test', version: '1' },
      });
      client.notify('notifications/initialized');
      return result;
    },
    async [Symbol.asyncDispose]() {
      await gateway.close();
      await served;
      await client.close();
    },
  };
}

type SkillsPage = { skills: { uri: string }[]; nextCursor?: string } & JsonObject;

describe('gateway: the skills extension', () => {
  it('declares the extension as its servers do, and lists their skills in both eras, paginated', async () => {
    await using _guard = leakGuard();
    const notes = skill('notes');
    const deploy = skill('deploy');
    const alpha = skillServer('alpha', [notes], { directoryRead: false });
    const beta = skillServer('beta', [deploy], { era: 'modern' });
    await using h = await host({ servers: [alpha.definition, beta.definition] });
    await using c = await connect(h, { pageSize: 1 });

    const { capabilities } = await c.initialize();
    expect(capabilities.extensions).toEqual({ [SKILLS_EXTENSION]: { directoryRead: true } });
    const discovered = await c.modern<{ capabilities: JsonObject }>('server/discover');
    expect(discovered.capabilities.extensions).toEqual(capabilities.extensions);

    // Legacy: entries as the servers listed them, one per page, no caching fields.
    const first = await c.request<SkillsPage>('skills/list');
    expect(first).toEqual({ skills: [notes.entry], nextCursor: expect.any(String) });
    const second = await c.request<SkillsPage>('skills/list', { cursor: first.nextCursor! });
    expect(second).toEqual({ skills: [deploy.entry] });
    // Modern: the same, with the era's caching attributes.
    const modern = await c.modern<SkillsPage>('skills/list');
    expect(modern).toMatchObject({
      skills: [notes.entry],
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
    });
    await expect(c.request('skills/list', { cursor: 'not-ours' })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('routes skills/get, directory reads and reads of skill files to the server that lists the skill', async () => {
    await using _guard = leakGuard();
    const notes = skill('notes');
    const deploy = skill('deploy');
    const alpha = skillServer('alpha', [notes]);
    const beta = skillServer('beta', [deploy], { era: 'modern' });
    await using h = await host({ servers: [alpha.definition, beta.definition] });
    await using c = await connect(h);
    await c.initialize();

    expect(await c.request('skills/get', { uri: deploy.uri })).toEqual({ skill: deploy.entry });
    expect(await c.modern('skills/get', { uri: notes.uri })).toMatchObject({
      skill: notes.entry,
      ttlMs: 0,
      cacheScope: 'private',
    });
    await expect(c.request('skills/get', { uri: 'skill://nobody/SKILL.md' })).rejects.toMatchObject(
      { code: -32602 },
    );
    await expect(c.request('skills/get', {})).rejects.toMatchObject({ code: -32602 });

    // A directory, page by page: the server's own cursor goes through.
    const page = await c.request<{ resources: JsonObject[]; nextCursor?: string }>(
      'resources/directory/read',
      { uri: deploy.root },
    );
    expect(page).toEqual({
      resources: [{ uri: deploy.uri, name: 'SKILL.md', mimeType: 'text/markdown' }],
      nextCursor: 'second',
    });
    expect(
      await c.modern('resources/directory/read', { uri: deploy.root, cursor: 'second' }),
    ).toMatchObject({
      resources: [{ uri: `${deploy.root}/references`, mimeType: 'inode/directory' }],
      ttlMs: 0,
    });
    // Not a directory: the server's -32602, named.
    await expect(c.request('resources/directory/read', { uri: deploy.uri })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("server 'beta'"),
    });
    await expect(
      c.request('resources/directory/read', { uri: 'skill://nobody' }),
    ).rejects.toMatchObject({ code: -32602 });

    // A file no resource list has, read from the server whose skill holds it.
    const guide = `${notes.root}/references/GUIDE.md`;
    expect(await c.request('resources/read', { uri: guide })).toEqual({
      contents: [{ uri: guide, mimeType: 'text/markdown', text: notes.files[guide] }],
    });
    expect(beta.servers[0]!.received.some((r) => r.method === 'resources/read')).toBe(false);
  });

  it('serves no skill URI that two servers list, naming both', async () => {
    await using _guard = leakGuard();
    const alpha = skillServer('alpha', [skill('notes', 'alpha notes'), skill('deploy')]);
    const beta = skillServer('beta', [skill('notes', 'beta notes')]);
    await using h = await host({ servers: [alpha.definition, beta.definition] });
    await using c = await connect(h);
    await c.initialize();

    const listed = await c.request<SkillsPage>('skills/list');
    expect(listed.skills.map((s) => s.uri)).toEqual(['skill://deploy/SKILL.md']);
    await expect(c.request('skills/get', { uri: 'skill://notes/SKILL.md' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/several servers \('alpha' and 'beta'\)/),
      data: { servers: ['alpha', 'beta'] },
    });
    await expect(
      c.request('resources/read', { uri: 'skill://notes/references/GUIDE.md' }),
    ).rejects.toMatchObject({ data: { servers: ['alpha', 'beta'] } });
    expect(await c.request('skills/get', { uri: 'skill://deploy/SKILL.md' })).toMatchObject({
      skill: { uri: 'skill://deploy/SKILL.md' },
    });
  });

  it("hides the skills of servers outside the client's view", async () => {
    await using _guard = leakGuard();
    const notes = skill('notes');
    const deploy = skill('deploy');
    const alpha = skillServer('alpha', [notes], { directoryRead: false });
    const beta = skillServer('beta', [deploy]);
    const plain = fake('plain');
    await using h = await host({
      servers: [alpha.definition, beta.definition, plain.definition],
      views: { onlyAlpha: { servers: ['alpha'] }, onlyPlain: { servers: ['plain'] } },
    });
    await using c = await connect(h, { view: 'onlyAlpha' });
    const { capabilities } = await c.initialize();
    // beta's directoryRead is not this client's to see.
    expect(capabilities.extensions).toEqual({ [SKILLS_EXTENSION]: {} });
    expect(await c.request('skills/list')).toEqual({ skills: [notes.entry] });
    await expect(c.request('skills/get', { uri: deploy.uri })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(c.request('resources/directory/read', { uri: deploy.root })).rejects.toMatchObject(
      { code: -32602 },
    );
    await expect(
      c.request('resources/read', { uri: `${deploy.root}/references/GUIDE.md` }),
    ).rejects.toMatchObject({ code: -32002 });
    // alpha declared no directory reads: -32602, and nothing is sent to it.
    await expect(c.request('resources/directory/read', { uri: notes.root })).rejects.toMatchObject({
      code: -32602,
    });
    expect(alpha.servers[0]!.received.some((r) => r.method === 'resources/directory/read')).toBe(
      false,
    );
    expect(beta.servers[0]!.received.some((r) => r.method === 'skills/get')).toBe(false);

    // A view without a skills server declares no extension at all.
    await using d = await connect(h, { view: 'onlyPlain' });
    expect((await d.initialize()).capabilities.extensions).toBeUndefined();
    expect(await d.request('skills/list')).toEqual({ skills: [] });
  });
});
