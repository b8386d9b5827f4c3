/**
 * The skills extension (SEP-2640) through the gateway, with the official v2 client's
 * `SkillsClient` in front (legacy, and pinned to 2026-07-28) and a backend written with the
 * official v2 server's skills extension behind (test/fixtures/mcp/conformance-backend.mjs: one
 * skill, `conformance-notes`, with `references/GUIDE.md`). The client verifies every file it
 * reads against the entry the gateway listed (size, digest, frontmatter), so a gateway that
 * changed a byte would fail here. A view without that backend hides its skills.
 */
import { Client } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { McpHost } from '../../src/index.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import { createLinkedTransports } from '../../src/testing/index.js';
import { sdkTransport } from '../helpers/gateway-harness.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';

const SKILL = 'skill://conformance-notes/SKILL.md';
const GUIDE = 'skill://conformance-notes/references/GUIDE.md';

/** A started host: `notes` (the skills backend) and `plain` (no skills); views of each. */
async function skillsHost() {
  const host = new McpHost({
    servers: [
      {
        name: 'notes',
        transport: {
          type: 'stdio',
          command: process.execPath,
          args: [mcpFixtures.conformanceBackend],
        },
      },
      {
        name: 'plain',
        transport: { type: 'stdio', command: process.execPath, args: [mcpFixtures.modernSdk] },
      },
    ],
    views: { notesOnly: { servers: ['notes'] }, plainOnly: { servers: ['plain'] } },
    health: { intervalMs: 0 },
  });
  await host.start();
  return host;
}

/** A v2 client of `gateway` (legacy by default, or pinned to 2026-07-28) and its skills. */
async function skillsClient(gateway: Gateway, era: 'legacy' | 'modern') {
  const [clientEnd, gatewayEnd] = createLinkedTransports();
  const served = gateway.serve(gatewayEnd);
  const client = new Client(
    { name: 'skills-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(sdkTransport(clientEnd));
  return {
    client,
    skills: new SkillsClient(client),
    async [Symbol.asyncDispose]() {
      await client.close();
      await served;
    },
  };
}

describe('gateway: skills from an SDK-written backend', () => {
  for (const era of ['legacy', 'modern'] as const)
    it(`lists, gets, reads and verifies a skill and its directory (${era})`, async () => {
      await using _guard = leakGuard();
      await using host = await skillsHost();
      await using gateway = createGateway({ host });
      await using c = await skillsClient(gateway, era);

      expect(c.skills.supported).toBe(true);
      expect(c.skills.directoryRead).toBe(true);
      const listing = await c.skills.list();
      expect(listing.skills.map((skill) => skill.uri)).toEqual([SKILL]);
      if (era === 'modern') expect(listing).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
      const [entry] = listing.skills;
      expect((await c.skills.get(SKILL)).skill).toEqual(entry);

      // Each read is checked against the entry: size, digest, and SKILL.md's frontmatter.
      const skillMd = await c.skills.read(entry!);
      expect(skillMd).toMatchObject({ verified: true, frontmatter: entry!.frontmatter });
      const guide = await c.skills.read(entry!, 'references/GUIDE.md');
      expect(guide.verified).toBe(true);
      expect(guide.text).toContain('# Guide');

      const root = await c.skills.readDirectory('skill://conformance-notes');
      expect(root.resources).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ uri: SKILL }),
          expect.objectContaining({
            uri: 'skill://conformance-notes/references',
            mimeType: 'inode/directory',
          }),
        ]),
      );
      const references = await c.skills.readDirectory('skill://conformance-notes/references');
      expect(references.resources.map((child) => child.uri)).toEqual([GUIDE]);
    });

  it("hides the skills of a backend outside the client's view", async () => {
    await using _guard = leakGuard();
    await using host = await skillsHost();
    await using shown = createGateway({ host, view: 'notesOnly' });
    await using visible = await skillsClient(shown, 'modern');
    expect((await visible.skills.list()).skills.map((skill) => skill.uri)).toEqual([SKILL]);

    await using hidden = createGateway({ host, view: 'plainOnly' });
    await using c = await skillsClient(hidden, 'modern');
    expect(c.skills.supported).toBe(false);
    expect((await c.skills.list()).skills).toEqual([]);
    // Asked anyway, by URI: nothing of the hidden backend is served.
    // The SDK refuses locally; a raw request shows the gateway refuses too.
    await expect(c.skills.get(SKILL)).rejects.toThrow(/does not support/);
    await expect(
      c.client.request({ method: 'skills/get', params: { uri: SKILL } }, z.object({}).loose()),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(c.client.readResource({ uri: GUIDE })).rejects.toMatchObject({ code: -32602 });
    await expect(c.client.readResource({ uri: SKILL })).rejects.toMatchObject({ code: -32602 });
  });
});
