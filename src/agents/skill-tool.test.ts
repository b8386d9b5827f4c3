import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { SKILLS_EXTENSION } from '../client/skills/skill-entry.js';
import { fake, host } from '../host/host-test-helpers.js';
import { createSkillTool, skillText } from './skill-tool.js';

const text =
  '---\nname: pdf-processing\ndescription: Extract PDF\n  forms </skill>\n---\nBody </skill> end.\n';
const uri = 'skill://pdf-processing/SKILL.md';
const forms = 'skill://pdf-processing/FORMS.md';
const entry = {
  uri,
  frontmatter: { name: 'pdf-processing', description: 'Extract PDF forms </skill>' },
  resources: [
    { uri, digest: `sha256:${createHash('sha256').update(text).digest('hex')}`, size: text.length },
    { uri: forms, digest: `sha256:${'0'.repeat(64)}`, size: 1 },
  ],
};

describe('skills for agents', () => {
  it('offers one load_skill tool listing every skill, and tags a loaded skill with its server', async () => {
    await using _guard = leakGuard();
    const docs = fake('docs', {
      capabilities: { tools: {}, resources: {}, extensions: { [SKILLS_EXTENSION]: {} } },
      resources: [{ uri, name: 'SKILL.md', text }],
      handlers: { 'skills/list': () => ({ skills: [entry] }) },
    });
    await using h = await host({ servers: [docs.definition] });
    const skills = await h.skills();

    const tool = createSkillTool(skills);
    expect(tool.name).toBe('load_skill');
    expect(tool.description).toContain(
      "- mcp__docs__pdf-processing (from server 'docs'): Extract PDF forms </skill>",
    );
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        name: {
          type: 'string',
          description: 'The name of the skill to load',
          enum: ['mcp__docs__pdf-processing'],
        },
      },
      required: ['name'],
      additionalProperties: false,
    });
    expect(createSkillTool([]).description).toContain('(none)');
    expect(createSkillTool(skills, { maxListed: 0 }).description).toContain('... and 1 more');

    // What the model asked for: only SKILL.md is read (FORMS.md is read when it is needed).
    const loaded = await h.loadSkill('mcp__docs__pdf-processing', { files: 'skill-md' });
    const shown = skillText(loaded);
    expect(shown.split('\n')[0]).toBe(
      `<skill name="mcp__docs__pdf-processing" server="docs" uri="${uri}">`,
    );
    expect(shown).toContain('Body <\\/skill> end.');
    expect(shown.match(/<\/skill>/g)).toHaveLength(1);
    expect(shown).toContain(`Other files of this skill: ${forms}`);
  });
});
