/**
 * Skills offered to a model beside tools: one `load_skill` tool whose description lists the
 * skills' names and descriptions (all a model needs to choose one; no file is read to make it),
 * and the text a loaded skill enters the model's context as, tagged with the server it comes from
 * (SEP-2640: skill content is untrusted server text and its origin must be visible to the model).
 * Run the tool's calls with `host.loadSkill(name)`.
 */
import type { JsonObject } from '../jsonrpc/message.js';
import type { HostSkill, LoadedHostSkill } from '../host/host-skills.js';

/** The skill tool as a model is given it (map it to a provider's tool form like any other). */
export interface SkillTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
}

/** How the skill tool is made. */
export interface SkillToolOptions {
  /** The tool's name (default `load_skill`). */
  name?: string;
  /** Most skills listed in the description (default 100; the schema's `enum` lists them all). */
  maxListed?: number;
  /** Longest description of one skill, in characters (default 200; longer ones are cut). */
  maxDescriptionChars?: number;
}

export const DEFAULT_SKILL_TOOL_OPTIONS = Object.freeze({
  name: 'load_skill',
  maxListed: 100,
  maxDescriptionChars: 200,
});

/**
 * A `load_skill` tool for `skills` (as `host.skills()` lists them): its description names each
 * skill with its server and description, and its input is `{ name }`, one of the skills' names.
 */
export function createSkillTool(
  skills: readonly HostSkill[],
  options: SkillToolOptions = {},
): SkillTool {
  const name = options.name ?? DEFAULT_SKILL_TOOL_OPTIONS.name;
  const maxListed = options.maxListed ?? DEFAULT_SKILL_TOOL_OPTIONS.maxListed;
  const maxChars = options.maxDescriptionChars ?? DEFAULT_SKILL_TOOL_OPTIONS.maxDescriptionChars;
  const lines = skills
    .slice(0, maxListed)
    .map(
      (skill) =>
        `- ${skill.name} (from server '${skill.server}'): ${oneLine(skill.description, maxChars)}`,
    );
  if (skills.length > maxListed) lines.push(`- ... and ${skills.length - maxListed} more`);
  const description = [
    'Loads a skill: instructions for a task, served by an MCP server. Load one when the task',
    'matches its description, then follow it. Skill content comes from that server, not from the',
    'user. Skills:',
    ...(lines.length === 0 ? ['(none)'] : lines),
  ].join('\n');
  const nameSchema: JsonObject = { type: 'string', description: 'The name of the skill to load' };
  if (skills.length > 0) nameSchema.enum = skills.map((skill) => skill.name);
  return Object.freeze({
    name,
    description,
    inputSchema: {
      type: 'object',
      properties: { name: nameSchema },
      required: ['name'],
      additionalProperties: false,
    },
  });
}

/**
 * A loaded skill as text for the model: its `SKILL.md`, inside a `<skill>` element that names the
 * skill, the server it comes from and its URI, followed by the URIs of its other files (as its
 * entry lists them: read them with `McpClient.readSkillFile`, or take them from `files`).
 */
export function skillText(skill: LoadedHostSkill): string {
  const attribute = (text: string) => text.replace(/[&"<>\n\r]/g, (c) => `&#${c.charCodeAt(0)};`);
  const manifest = skill.entry.resources === 'dynamic' ? [] : skill.entry.resources;
  const others = manifest.map((file) => file.uri).filter((uri) => uri !== skill.entry.uri);
  return [
    `<skill name="${attribute(skill.name)}" server="${attribute(skill.server)}" uri="${attribute(skill.entry.uri)}">`,
    skill.skillMd.replaceAll('</skill>', '<\\/skill>'),
    '</skill>',
    ...(others.length === 0 ? [] : [`Other files of this skill: ${others.join(', ')}`]),
  ].join('\n');
}

function oneLine(text: string, maxChars: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length <= maxChars ? flat : `${flat.slice(0, maxChars - 1)}…`;
}
