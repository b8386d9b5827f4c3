/**
 * The command-line transcripts of docs/auth.md ("The command line") replayed on the built CLI:
 * the document's mcp.yaml (its `${MCP_SERVER_URL}` pointed at an MCP server built with the
 * official SDK, protected by `oidc-provider`, on 127.0.0.1), then each `$ mcp-host ...` command as
 * written, in order, with the exit code the transcript shows (`echo $?`, else 0) and every line
 * it shows printed, its example values (URLs, codes, times, counts, `…`, the SCOPES cell) matching
 * any value. The person is played headlessly: the printed authorization URL is consented to and
 * the browser's redirect delivered to the CLI's listener; the printed device code is approved.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, it } from 'vitest';
import { codeBlockAfter, repoRoot } from '../helpers/doc-examples.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { startOidcWorld, type OidcWorld } from '../helpers/oidc-world.js';
import { cliEnv, cliPath, ensureBuiltCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

beforeAll(() => ensureBuiltCli());

const docs = readFileSync(join(repoRoot, 'docs/auth.md'), 'utf8');
const SECTION = '## The command line';
/** Values the transcript shows that are the example's own (the SCOPES cell). */
const EXAMPLE_WORDS = new Set(['read']);

interface Step {
  command: string;
  output: string[];
}

/** `$ command` lines and the lines each printed; `echo $?` is a step of its own. */
function steps(transcript: string): Step[] {
  const result: Step[] = [];
  for (const raw of transcript.split('\n')) {
    const line = raw.replace(/^ {2}/, '');
    if (line.startsWith('$ ')) result.push({ command: line.slice(2), output: [] });
    else if (line !== '') result.at(-1)?.output.push(line);
  }
  return result;
}

/** A line of the transcript as a pattern: example values match any value. */
function pattern(line: string): RegExp {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const tokens = line
    .trim()
    .split(/\s+/)
    .map((token) => {
      if (/^\(?https?:\/\//.test(token)) return token.startsWith('(') ? '\\(\\S+' : '\\S+';
      // Elided text: anything, spaces included.
      if (token.includes('…')) return token.split('…').map(escape).join('.*');
      if (
        EXAMPLE_WORDS.has(token) ||
        /^\d{4}-\d\d-\d\dT/.test(token) ||
        /^[A-Z]{4}-[A-Z]{4}$/.test(token)
      )
        return '\\S+';
      if (/^\(?\d+\)?$/.test(token)) return escape(token).replace(/\d+/, '\\d+');
      return escape(token);
    });
  return new RegExp(`^${tokens.join('\\s+')}$`);
}

/** Runs one `mcp-host ...` command in `dir`, playing the person when it waits for one. */
async function run(
  command: string,
  dir: string,
  env: NodeJS.ProcessEnv,
  world: OidcWorld,
): Promise<{ code: number | null; lines: string[] }> {
  const args = command.split(' ').slice(1);
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: dir,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const person: Promise<void>[] = [];
  const read = (stream: NodeJS.ReadableStream) =>
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      if (/^http:\/\/127\.0\.0\.1:\d+\/auth\?/.test(line))
        person.push(
          world.login(line).then(async (redirect) => {
            const page = await fetch(redirect);
            await page.body?.cancel();
          }),
        );
      else if (/^[A-Z]{4}-[A-Z]{4}$/.test(line)) person.push(world.approveDevice(line));
    });
  read(child.stdout);
  read(child.stderr);
  const [code] = (await once(child, 'exit')) as [number | null];
  child.stdin.end();
  await Promise.all(person);
  return { code, lines };
}

describe('docs/auth.md: the command line', () => {
  it('the transcripts replay against oidc-provider as shown', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcWorld();
    using dir = tempDir();
    writeFileSync(join(dir.path, 'mcp.yaml'), codeBlockAfter(docs, SECTION, 0, 'yaml'));
    // A browser opener that opens nothing (the person is played by the test).
    const bin = join(dir.path, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'xdg-open'), '#!/bin/sh\nexit 1\n');
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const env = cliEnv({
      MCP_SERVER_URL: world.mcpUrl,
      MCP_HOST_STATE_DIR: join(dir.path, 'state'),
      PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
    });

    const transcripts = [
      codeBlockAfter(docs, SECTION, 0, 'console'),
      codeBlockAfter(docs, SECTION, 1, 'console'),
    ];
    const replayed: string[] = [];
    for (const transcript of transcripts) {
      let last: { code: number | null; lines: string[] } = { code: 0, lines: [] };
      const all = steps(transcript);
      for (const [index, step] of all.entries()) {
        if (step.command === 'echo $?') {
          expect(String(last.code), `the exit code after ${replayed.at(-1)}`).toBe(step.output[0]);
          continue;
        }
        expect(step.command).toMatch(/^mcp-host /);
        last = await run(step.command, dir.path, env, world);
        replayed.push(step.command);
        if (all[index + 1]?.command !== 'echo $?') expect(last.code, step.command).toBe(0);
        for (const line of step.output)
          expect(last.lines, `${step.command}: ${line}`).toContainEqual(
            expect.stringMatching(pattern(line)),
          );
      }
    }
    expect(replayed).toEqual([
      'mcp-host tools tracker',
      'mcp-host auth login tracker',
      'mcp-host auth status',
      'mcp-host auth logout tracker',
      'mcp-host auth login tracker --device',
    ]);
  }, 120_000);
});
