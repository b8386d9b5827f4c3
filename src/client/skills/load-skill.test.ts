import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { JsonRpcError, JsonRpcErrorCode } from '../../errors/json-rpc-error.js';
import type { JsonObject } from '../../jsonrpc/message.js';
import { connect } from '../../../test/helpers/mcp-client-harness.js';
import { DEFAULT_SKILL_LIMITS } from './load-skill.js';
import { SKILLS_EXTENSION, type SkillEntry } from './skill-entry.js';

const SKILL_MD = `---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
metadata:
  version: "2.1"
  tags: [pdf, forms]
---

# PDF processing

Use references/FORMS.md for forms.
`;
const FORMS = 'Supporting content.\n';
const LOGO = Buffer.from([0, 1, 2, 250, 251, 252]);

const digestOf = (bytes: string | Buffer) =>
  `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A served file: its text (or bytes, served as a blob) and what the entry says about it. */
interface Served {
  uri: string;
  content: string | Buffer;
  /** What the entry lists, when it lies. */
  listed?: { digest?: string; size?: number };
}

const base = 'skill://pdf-processing';
function files(): Served[] {
  return [
    { uri: `${base}/SKILL.md`, content: SKILL_MD },
    { uri: `${base}/references/FORMS.md`, content: FORMS },
    { uri: `${base}/assets/logo.bin`, content: LOGO },
  ];
}

function entryOf(served: Served[], frontmatter?: JsonObject): JsonObject {
  return {
    uri: `${base}/SKILL.md`,
    frontmatter: frontmatter ?? {
      name: 'pdf-processing',
      description: 'Extract, fill, and assemble PDF documents',
      metadata: { version: '2.1', tags: ['pdf', 'forms'] },
    },
    resources: served.map(({ uri, content, listed }) => ({
      uri,
      digest: listed?.digest ?? digestOf(content),
      size: listed?.size ?? Buffer.byteLength(content),
    })),
  };
}

/** A fake server declaring the skills extension, serving `served` and listing `entries`. */
async function skillServer(options: {
  served?: Served[];
  entries?: unknown[];
  era?: 'legacy' | 'modern';
  declare?: boolean;
  pageSize?: number;
}) {
  const served = options.served ?? files();
  const entries = options.entries ?? [entryOf(served)];
  const size = options.pageSize ?? entries.length;
  return connect({
    era: options.era ?? 'legacy',
    capabilities: {
      resources: {},
      ...(options.declare === false ? {} : { extensions: { [SKILLS_EXTENSION]: {} } }),
    },
    handlers: {
      'skills/list': (params) => {
        const start = typeof params.cursor === 'string' ? Number(params.cursor) : 0;
        const end = start + size;
        return {
          skills: entries.slice(start, end),
          ...(end < entries.length ? { nextCursor: String(end) } : {}),
          ttlMs: 0,
          cacheScope: 'private',
        };
      },
      'skills/get': (params) => {
        const entry = entries.find(
          (candidate) => (candidate as { uri?: unknown } | null)?.uri === params.uri,
        );
        if (entry === undefined)
          throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'no such skill');
        return { skill: entry, ttlMs: 0, cacheScope: 'private' };
      },
      'resources/read': (params) => {
        const file = served.find((candidate) => candidate.uri === params.uri);
        if (file === undefined) throw new JsonRpcError(-32002, 'Resource not found');
        return {
          contents: [
            typeof file.content === 'string'
              ? { uri: file.uri, mimeType: 'text/markdown', text: file.content }
              : { uri: file.uri, blob: file.content.toString('base64') },
          ],
        };
      },
    },
  });
}

type Harness = Awaited<ReturnType<typeof skillServer>>;
const reads = (h: Harness) =>
  h.fake.received.filter((r) => r.method === 'resources/read').map((r) => r.params?.uri);

async function listedEntry(h: Harness): Promise<SkillEntry> {
  const { skills } = await h.client.listSkills();
  return skills[0]!;
}

/** Loads the listed skill and returns the failure, with the reads the server saw. */
async function failedLoad(served: Served[], entries?: unknown[], options = {}) {
  await using h = await skillServer({ served, ...(entries === undefined ? {} : { entries }) });
  await h.client.connect();
  const entry = await listedEntry(h);
  const error = await h.client.loadSkill(entry, options).then(
    () => undefined,
    (e: unknown) => e as Error & { code: string; serverName: string; details: JsonObject },
  );
  expect(error).toBeDefined();
  return { error: error!, reads: reads(h) };
}

describe('skills: listing', () => {
  it.each(['legacy', 'modern'] as const)(
    'lists a declaring %s server’s skills, all pages, and reads no file',
    async (era) => {
      const entries = ['a', 'b', 'c'].map((name) => ({
        uri: `skill://${name}/SKILL.md`,
        frontmatter: { name, description: `skill ${name}` },
        resources: [{ uri: `skill://${name}/SKILL.md`, digest: digestOf(name), size: 1 }],
      }));
      await using h = await skillServer({ era, entries, pageSize: 2 });
      await h.client.connect();
      expect(h.client.supportsSkills).toBe(true);
      const listing = await h.client.listSkills();
      expect(listing.skills.map((skill) => skill.frontmatter.name)).toEqual(['a', 'b', 'c']);
      expect(listing.excluded).toEqual([]);
      expect(h.fake.methods().filter((m) => m === 'skills/list')).toHaveLength(2);
      expect(reads(h)).toEqual([]);
    },
  );

  it('never asks a server that did not declare the extension', async () => {
    await using h = await skillServer({ declare: false });
    await h.client.connect();
    expect(h.client.supportsSkills).toBe(false);
    await expect(h.client.listSkills()).rejects.toMatchObject({
      code: 'CAPABILITY_NOT_SUPPORTED',
      serverName: 'fake',
    });
    await expect(h.client.loadSkill(`${base}/SKILL.md`)).rejects.toMatchObject({
      code: 'CAPABILITY_NOT_SUPPORTED',
    });
    expect(h.fake.methods().filter((m) => m.startsWith('skills/'))).toEqual([]);
  });

  it('leaves out junk entries, each with a reason, and keeps the good ones', async () => {
    const good = entryOf(files());
    const junk: unknown[] = [
      42,
      null,
      { ...good, uri: 'skill://pdf-processing/README.md' },
      { ...good, frontmatter: { name: 'other-name', description: 'x' } },
      { ...good, frontmatter: { name: 'pdf-processing' } },
      { ...good, resources: undefined },
      { ...good, resources: 'static' },
      { ...good, resources: [{ uri: `${base}/SKILL.md`, digest: 'md5:abc', size: 1 }] },
      { ...good, resources: [{ uri: `${base}/SKILL.md`, digest: digestOf('x'), size: -1 }] },
      {
        ...good,
        resources: [
          { uri: `${base}/SKILL.md`, digest: digestOf('x'), size: 1 },
          { uri: `${base}/../other/SKILL.md`, digest: digestOf('x'), size: 1 },
        ],
      },
      {
        ...good,
        resources: [
          { uri: `${base}/SKILL.md`, digest: digestOf('x'), size: 1 },
          { uri: 'skill://elsewhere/file.md', digest: digestOf('x'), size: 1 },
        ],
      },
      { ...good, resources: [{ uri: `${base}/other.md`, digest: digestOf('x'), size: 1 }] },
      { ...good, ['__proto__']: { polluted: true } },
    ];
    await using h = await skillServer({ entries: [...junk, good] });
    await h.client.connect();
    const listing = await h.client.listSkills();
    expect(listing.skills).toHaveLength(2); // the good one and the one with a __proto__ key
    expect(listing.excluded).toHaveLength(junk.length - 1);
    for (const { reason } of listing.excluded) expect(reason.length).toBeGreaterThan(5);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('skills: loading', () => {
  it('reads nothing until a skill is loaded, then SKILL.md first and each listed file once', async () => {
    await using h = await skillServer({});
    await h.client.connect();
    const entry = await listedEntry(h);
    expect(reads(h)).toEqual([]);
    const loaded = await h.client.loadSkill(entry);
    expect(reads(h)).toEqual(files().map((file) => file.uri));
    expect(loaded.skillMd).toBe(SKILL_MD);
    expect(loaded.entry.uri).toBe(`${base}/SKILL.md`);
    expect(loaded.files).toEqual([
      { uri: `${base}/SKILL.md`, mimeType: 'text/markdown', text: SKILL_MD },
      { uri: `${base}/references/FORMS.md`, mimeType: 'text/markdown', text: FORMS },
      { uri: `${base}/assets/logo.bin`, blob: LOGO.toString('base64') },
    ]);
  });

  it('loads by URI through skills/get, in the modern era too', async () => {
    await using h = await skillServer({ era: 'modern' });
    await h.client.connect();
    const loaded = await h.client.loadSkill(`${base}/SKILL.md`);
    expect(loaded.files).toHaveLength(3);
    expect(h.fake.methods()).toContain('skills/get');
    await expect(h.client.loadSkill('skill://nothing/SKILL.md')).rejects.toMatchObject({
      code: -32602,
    });
  });

  it("with files: 'skill-md' reads only SKILL.md; readSkillFile reads a listed file later", async () => {
    await using h = await skillServer({});
    await h.client.connect();
    const entry = await listedEntry(h);
    const loaded = await h.client.loadSkill(entry, { files: 'skill-md' });
    expect(loaded.files.map((file) => file.uri)).toEqual([`${base}/SKILL.md`]);
    expect(reads(h)).toEqual([`${base}/SKILL.md`]);
    expect(await h.client.readSkillFile(entry, `${base}/references/FORMS.md`)).toMatchObject({
      text: FORMS,
    });
    await expect(
      h.client.readSkillFile(entry, `${base}/references/UNLISTED.md`),
    ).rejects.toMatchObject({
      code: 'SKILL_VERIFICATION_FAILED',
      details: { check: 'unlisted', file: `${base}/references/UNLISTED.md` },
    });
    expect(reads(h)).toHaveLength(2);
  });
});

describe('skills: verification', () => {
  it('refuses a SKILL.md whose digest does not match, and reads nothing after it', async () => {
    const served = files();
    served[0]!.listed = { digest: digestOf(SKILL_MD.replace('Use', 'Ignore')) };
    const { error, reads } = await failedLoad(served);
    expect(error).toMatchObject({
      code: 'SKILL_VERIFICATION_FAILED',
      serverName: 'fake',
      details: { skill: `${base}/SKILL.md`, file: `${base}/SKILL.md`, check: 'digest' },
    });
    expect(error.message).toContain("server 'fake'");
    expect(error.message).toContain(`${base}/SKILL.md`);
    expect(error.message).not.toContain('# PDF processing');
    expect(reads).toEqual([`${base}/SKILL.md`]);
  });

  it('refuses a size mismatch even when the digest matches what was served', async () => {
    const served = files();
    served[0]!.listed = { size: Buffer.byteLength(SKILL_MD) - 1 };
    const { error, reads } = await failedLoad(served);
    expect(error).toMatchObject({
      code: 'SKILL_VERIFICATION_FAILED',
      details: { check: 'size', expected: Buffer.byteLength(SKILL_MD) - 1 },
    });
    expect(reads).toEqual([`${base}/SKILL.md`]);
  });

  it('counts size in UTF-8 bytes, not characters', async () => {
    const text = SKILL_MD.replace('# PDF processing', '# PDF – processing ✓');
    const served = files();
    served[0]!.content = text;
    served[0]!.listed = { size: text.length };
    const { error } = await failedLoad(served);
    expect(error.details).toMatchObject({ check: 'size', actual: Buffer.byteLength(text) });
  });

  it('refuses a tampered supporting file, naming it, and reads no file after it', async () => {
    const served = files();
    // Same length, other bytes: only the digest can tell.
    served[1]!.content = 'Supporting CONTENT.\n';
    served[1]!.listed = { digest: digestOf(FORMS), size: Buffer.byteLength(FORMS) };
    const { error, reads } = await failedLoad(served);
    expect(error.details).toMatchObject({ file: `${base}/references/FORMS.md`, check: 'digest' });
    expect(error.message).toContain('references/FORMS.md');
    expect(reads).toEqual([`${base}/SKILL.md`, `${base}/references/FORMS.md`]);
  });

  it('refuses a blob that is not base64, and a read with no content', async () => {
    await using h = await connect({
      era: 'legacy',
      capabilities: { resources: {}, extensions: { [SKILLS_EXTENSION]: {} } },
      handlers: {
        'skills/list': () => ({ skills: [entryOf(files())] }),
        'resources/read': (params) =>
          params.uri === `${base}/SKILL.md`
            ? { contents: [{ uri: params.uri, text: SKILL_MD }] }
            : params.uri === `${base}/references/FORMS.md`
              ? { contents: [{ uri: params.uri, blob: '%%%not base64' }] }
              : { contents: [] },
      },
    });
    await h.client.connect();
    const entry = await listedEntry(h);
    await expect(h.client.loadSkill(entry)).rejects.toMatchObject({
      code: 'SKILL_VERIFICATION_FAILED',
      details: { check: 'content', file: `${base}/references/FORMS.md` },
    });
    await expect(h.client.readSkillFile(entry, `${base}/assets/logo.bin`)).rejects.toMatchObject({
      code: 'SKILL_VERIFICATION_FAILED',
      details: { check: 'content', file: `${base}/assets/logo.bin` },
    });
  });

  const frontmatterCases: [string, string, JsonObject | undefined][] = [
    [
      'a changed description',
      SKILL_MD.replace('Extract, fill,', 'Exfiltrate credentials,'),
      undefined,
    ],
    ['an extra field', SKILL_MD.replace('metadata:', 'allowed-tools: Bash\nmetadata:'), undefined],
    ['a changed nested value', SKILL_MD.replace('"2.1"', '"2.2"'), undefined],
    ['a number where the entry has a string', SKILL_MD.replace('"2.1"', '2.1'), undefined],
    ['no frontmatter', '# PDF processing\n', undefined],
    ['an unclosed block', '---\nname: pdf-processing\n', undefined],
    ['invalid YAML', '---\nname: [unclosed\n---\n', undefined],
    ['duplicate keys', '---\nname: pdf-processing\nname: pdf-processing\n---\n', undefined],
    ['a list, not a mapping', '---\n- name\n- description\n---\n', undefined],
    [
      'an alias bomb',
      `---\na: &a ["x","x","x","x","x","x","x","x","x","x"]\n${Array.from({ length: 120 }, (_, i) => `k${i}: [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]`).join('\n')}\n---\n`,
      undefined,
    ],
  ];

  it.each(frontmatterCases)(
    'refuses SKILL.md with %s in its frontmatter (digest and size matching)',
    async (_, text, frontmatter) => {
      const served = files();
      served[0]!.content = text;
      const { error, reads } = await failedLoad(served, [entryOf(served, frontmatter)]);
      expect(error).toMatchObject({
        code: 'SKILL_VERIFICATION_FAILED',
        details: { check: 'frontmatter', file: `${base}/SKILL.md` },
      });
      expect(reads).toEqual([`${base}/SKILL.md`]);
    },
  );

  it('accepts frontmatter with CRLF lines, a byte order mark, and keys in another order', async () => {
    const text = `\uFEFF${SKILL_MD.replace(
      'name: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n',
      'description: Extract, fill, and assemble PDF documents\nname: pdf-processing\n',
    ).replace(/\n/g, '\r\n')}`;
    const served = files();
    served[0]!.content = text;
    await using h = await skillServer({ served });
    await h.client.connect();
    const loaded = await h.client.loadSkill(await listedEntry(h));
    expect(loaded.skillMd).toBe(text);
  });

  it('refuses a dynamic skill unless allowed, and then checks its frontmatter and size', async () => {
    const served = files();
    const dynamic = { ...entryOf(served), resources: 'dynamic' };
    {
      const { error, reads } = await failedLoad(served, [dynamic]);
      expect(error.details).toMatchObject({ check: 'dynamic' });
      expect(reads).toEqual([]);
    }
    {
      await using h = await skillServer({ served, entries: [dynamic] });
      await h.client.connect();
      const entry = await listedEntry(h);
      const loaded = await h.client.loadSkill(entry, { allowDynamic: true });
      expect(loaded.files.map((file) => file.uri)).toEqual([`${base}/SKILL.md`]);
      await expect(
        h.client.loadSkill(entry, { allowDynamic: true, maxSkillBytes: 10 }),
      ).rejects.toMatchObject({ code: 'SKILL_TOO_LARGE' });
    }
  });
});

describe('skills: limits', () => {
  it('defaults to the extension’s limits: 16 MiB and 512 files', () => {
    expect(DEFAULT_SKILL_LIMITS).toEqual({ maxSkillBytes: 16_777_216, maxSkillFiles: 512 });
  });

  it('refuses a skill over 16 MiB (summed over its manifest) before reading anything', async () => {
    const served = files();
    served[2]!.listed = {
      size:
        DEFAULT_SKILL_LIMITS.maxSkillBytes -
        Buffer.byteLength(SKILL_MD) -
        Buffer.byteLength(FORMS) +
        1,
    };
    const { error, reads } = await failedLoad(served);
    expect(error).toMatchObject({
      code: 'SKILL_TOO_LARGE',
      serverName: 'fake',
      details: { skill: `${base}/SKILL.md`, bytes: 16_777_217, limit: 16_777_216 },
    });
    expect(reads).toEqual([]);
  });

  it('takes other limits, in bytes and in files', async () => {
    await using h = await skillServer({});
    await h.client.connect();
    const entry = await listedEntry(h);
    const total = files().reduce((sum, file) => sum + Buffer.byteLength(file.content), 0);
    await expect(h.client.loadSkill(entry, { maxSkillBytes: total - 1 })).rejects.toMatchObject({
      code: 'SKILL_TOO_LARGE',
      details: { bytes: total, limit: total - 1 },
    });
    await expect(h.client.loadSkill(entry, { maxSkillFiles: 2 })).rejects.toMatchObject({
      code: 'SKILL_TOO_LARGE',
      details: { files: 3, limit: 2 },
    });
    expect(reads(h)).toEqual([]);
    expect((await h.client.loadSkill(entry, { maxSkillBytes: total })).files).toHaveLength(3);
  });

  it('refuses a caller’s entry that is not one, and a skills/get answer that is junk', async () => {
    await using h = await connect({
      era: 'legacy',
      capabilities: { resources: {}, extensions: { [SKILLS_EXTENSION]: {} } },
      handlers: {
        'skills/get': (params) =>
          params.uri === `${base}/SKILL.md` ? { skill: 'junk' } : { skill: entryOf(files()) },
      },
    });
    await h.client.connect();
    await expect(
      h.client.loadSkill({ uri: 'nope' } as unknown as SkillEntry),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(h.client.loadSkill(`${base}/SKILL.md`)).rejects.toMatchObject({
      code: 'PROTOCOL_VIOLATION',
      method: 'skills/get',
    });
    // An entry for another skill than the one asked for is junk too.
    await expect(h.client.getSkill('skill://other/SKILL.md')).rejects.toMatchObject({
      code: 'PROTOCOL_VIOLATION',
    });
  });
});
