/**
 * Skills (the io.modelcontextprotocol/skills extension, SEP-2640) through `McpHost`, against real
 * server processes over stdio (test/fixtures/servers/skills.mjs, which reports every method it was
 * sent): listed only from servers that declare the extension, per server under namespaced names,
 * no skill file read before `loadSkill`, and a tampered file refused.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { McpHost, type HostServerDefinition } from '../../src/index.js';
import { leakGuard } from '../helpers/leak-guard.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/servers/skills.mjs', import.meta.url));
const SKILL_MD = 'skill://pdf-processing/SKILL.md';
const FORMS = 'skill://pdf-processing/references/FORMS.md';

function server(name: string, ...flags: string[]): HostServerDefinition {
  return {
    name,
    transport: { type: 'stdio', command: process.execPath, args: [FIXTURE, ...flags] },
    client: { era: 'legacy' },
  };
}

/** What the server was sent so far (asked through its `received` tool). */
async function received(host: McpHost, server: string): Promise<string[]> {
  const result = await host.callTool(`mcp__${server}__received`);
  const block = result.content[0];
  return JSON.parse(block?.type === 'text' ? block.text : '[]') as string[];
}

describe('skills through the host', () => {
  it('lists skills per declaring server, reads no skill file until one is loaded, then verifies it', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({
      servers: [server('docs'), server('mirror'), server('plain', '--plain')],
    });
    await host.start();

    const skills = await host.skills();
    expect(skills.map((skill) => [skill.name, skill.server, skill.skillName]).sort()).toEqual([
      ['mcp__docs__pdf-processing', 'docs', 'pdf-processing'],
      ['mcp__mirror__pdf-processing', 'mirror', 'pdf-processing'],
    ]);
    expect(skills[0]).toMatchObject({
      uri: SKILL_MD,
      description: 'Extract, fill, and assemble PDF documents',
    });
    // The server that did not declare the extension was never asked; nobody read a skill file.
    expect(await received(host, 'plain')).not.toContain('skills/list');
    for (const name of ['docs', 'mirror'])
      expect((await received(host, name)).filter((m) => m.startsWith('resources/read'))).toEqual(
        [],
      );

    const loaded = await host.loadSkill('mcp__docs__pdf-processing');
    expect(loaded).toMatchObject({ name: 'mcp__docs__pdf-processing', server: 'docs' });
    expect(loaded.skillMd).toContain('# PDF processing');
    expect(loaded.files.map((file) => file.uri)).toEqual([SKILL_MD, FORMS]);
    expect((await received(host, 'docs')).filter((m) => m.startsWith('resources/read'))).toEqual([
      `resources/read ${SKILL_MD}`,
      `resources/read ${FORMS}`,
    ]);
    // Loading one server's skill reads nothing from the other server with the same skill.
    expect((await received(host, 'mirror')).filter((m) => m.startsWith('resources/read'))).toEqual(
      [],
    );
  });

  it('refuses a tampered file with a typed error naming the server, the skill and the file', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({ servers: [server('evil', '--tamper')] });
    await host.start();

    const error = await host.loadSkill('mcp__evil__pdf-processing').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: 'SKILL_VERIFICATION_FAILED',
      serverName: 'evil',
      details: { skill: SKILL_MD, file: FORMS, check: 'digest' },
    });
    expect((error as Error).message).toMatch(/^server 'evil': skill 'skill:\/\/pdf-processing/);
    expect((error as Error).message).not.toContain('evil.example');
    // A name no server has is an error too, not a load of something else.
    await expect(host.loadSkill('mcp__evil__other')).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});
