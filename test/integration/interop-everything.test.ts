/**
 * The client against the official "everything" reference server over stdio: every tool that needs
 * no LLM, sampling and elicitation answered by test handlers, resources (list, templates, read,
 * subscribe and update notifications), prompts with arguments, completion and logging (the
 * tests are in test/helpers/everything-suite.ts, shared with http-everything.test.ts), and the
 * environment a stdio server gets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  everythingHandlers,
  everythingSuite,
  type EverythingAsked,
} from '../helpers/everything-suite.js';
import { connectScript, officialServers, type RunningClient } from '../helpers/mcp-servers.js';

const { script, args } = officialServers.everything;
let server: RunningClient;
const asked: EverythingAsked = { sampled: [], elicited: [] };

beforeAll(async () => {
  server = await connectScript('everything', script, args, {
    env: { EVERYTHING_CANARY_SECRET: 'not-a-real-secret' },
    handlers: everythingHandlers(asked),
  });
});

afterAll(async () => {
  await server[Symbol.asyncDispose]();
});

describe('official everything server over stdio', () => {
  everythingSuite(() => server, asked);

  it('gives the server only the allow-listed environment plus what was configured', async () => {
    const result = await server.client.callTool('get-env', {});
    const text = JSON.stringify(result.content);
    expect(text).toContain('EVERYTHING_CANARY_SECRET');
    expect(text).toContain('PATH');
    expect(text).not.toContain('VITEST');
  });
});
