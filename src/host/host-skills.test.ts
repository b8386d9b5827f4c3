import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { SKILLS_EXTENSION } from '../client/skills/skill-entry.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { fake, host } from './host-test-helpers.js';

const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** A skill at `path` (its last segment is its name): its entry and its one file, SKILL.md. */
function skill(path: string, description = `the ${path} skill`) {
  const name = path.split('/').at(-1)!;
  const uri = `skill://${path}/SKILL.md`;
  const text = `---\nname: ${name}\ndescription: ${description}\n---\nDo ${path}.\n`;
  const entry: JsonObject = {
    uri,
    frontmatter: { name, description },
    resources: [{ uri, digest: digestOf(text), size: Buffer.byteLength(text) }],
  };
  return { uri, text, entry };
}

function skillServer(name: string, skills: ReturnType<typeof skill>[], era: 'legacy' | 'modern') {
  return fake(name, {
    era,
    capabilities: { tools: {}, resources: {}, extensions: { [SKILLS_EXTENSION]: {} } },
    resources: skills.map(({ uri, text }) => ({ uri, name: uri, text })),
    handlers: { 'skills/list': () => ({ skills: skills.map((s) => s.entry) }) },
  });
}

describe('McpHost skills', () => {
  it('names skills per server, disambiguates same-named ones, and loads each from its own server', async () => {
    await using _guard = leakGuard();
    const billing = skill('acme/billing/refunds');
    const support = skill('acme/support/refunds');
    const a = skillServer('alpha', [billing, support, skill('git-workflow')], 'legacy');
    const b = skillServer('beta', [skill('git-workflow', 'beta flavour')], 'modern');
    const none = fake('none');
    await using h = await host({ servers: [a.definition, b.definition, none.definition] });

    const skills = await h.skills();
    expect(skills.map((s) => s.name).sort()).toEqual([
      'mcp__alpha__acme_billing_refunds',
      'mcp__alpha__acme_support_refunds',
      'mcp__alpha__git-workflow',
      'mcp__beta__git-workflow',
    ]);
    expect(none.servers[0]!.methods()).not.toContain('skills/list');
    const read = (server: typeof a) =>
      server.servers[0]!.received.filter((r) => r.method === 'resources/read').length;
    expect(read(a) + read(b)).toBe(0);

    const loaded = await h.loadSkill('mcp__alpha__acme_support_refunds');
    expect(loaded).toMatchObject({ server: 'alpha', skillMd: support.text });
    expect(loaded.entry.uri).toBe(support.uri);
    const beta = await h.loadSkill('mcp__beta__git-workflow');
    expect(beta.skillMd).toContain('beta flavour');
    expect([read(a), read(b)]).toEqual([1, 1]);
  });

  it('reads a loaded skill’s other files later, from its own server, and only listed ones', async () => {
    await using _guard = leakGuard();
    const text = '---\nname: forms\ndescription: Fill forms\n---\nSee guide.md.\n';
    const guide = 'Guide.\n';
    const uri = 'skill://forms/SKILL.md';
    const entry = {
      uri,
      frontmatter: { name: 'forms', description: 'Fill forms' },
      resources: [
        { uri, digest: digestOf(text), size: text.length },
        { uri: 'skill://forms/guide.md', digest: digestOf(guide), size: guide.length },
      ],
    };
    const serve = (name: string) =>
      fake(name, {
        capabilities: { tools: {}, resources: {}, extensions: { [SKILLS_EXTENSION]: {} } },
        resources: [
          { uri, name: 'SKILL.md', text },
          { uri: 'skill://forms/guide.md', name: 'guide.md', text: guide },
          { uri: 'skill://forms/unlisted.md', name: 'unlisted.md', text: 'x' },
        ],
        handlers: { 'skills/list': () => ({ skills: [entry] }) },
      });
    const [a, b] = [serve('alpha'), serve('beta')];
    await using h = await host({ servers: [a.definition, b.definition] });
    const loaded = await h.loadSkill('mcp__beta__forms', { files: 'skill-md' });
    expect(loaded.files).toHaveLength(1);
    expect(await h.readSkillFile(loaded, 'skill://forms/guide.md')).toMatchObject({ text: guide });
    await expect(h.readSkillFile(loaded, 'skill://forms/unlisted.md')).rejects.toMatchObject({
      code: 'SKILL_VERIFICATION_FAILED',
      serverName: 'beta',
      details: { check: 'unlisted' },
    });
    const reads = (server: typeof a) =>
      server.servers[0]!.received.filter((r) => r.method === 'resources/read').map(
        (r) => r.params?.uri,
      );
    expect(reads(a)).toEqual([]);
    expect(reads(b)).toEqual([uri, 'skill://forms/guide.md']);
  });

  it('loads by name before any listing (it lists first), and refuses an unknown name', async () => {
    await using _guard = leakGuard();
    const a = skillServer('alpha', [skill('git-workflow')], 'legacy');
    await using h = await host({ servers: [a.definition] });
    expect((await h.loadSkill('mcp__alpha__git-workflow')).files).toHaveLength(1);
    await expect(h.loadSkill('mcp__alpha__nothing')).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});
