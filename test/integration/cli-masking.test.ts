/**
 * Secrets never printed by the built CLI: a URL's user info and credential query values are masked
 * the same way (`maskUrl`) by `servers list`, `config show` and `doctor`, in table and JSON mode;
 * a syntax error's diagnostic quotes no configured value.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { leakGuard } from '../helpers/leak-guard.js';
import { closedPort, ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

const PASSWORD = 'pa55w0rd-c4n4ry';
const QUERY_SECRET = 'qry-canary-71f3';
const ACCESS_KEY = 'akey-canary-09be';

beforeAll(() => ensureBuiltCli());

describe('URLs are masked alike in every command', () => {
  it('servers list, config show and doctor hide user info and credential query values', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/mcp?api_key=${QUERY_SECRET}&access_key=${ACCESS_KEY}&m=1`;
    const withUser = `http://admin:${PASSWORD}@127.0.0.1:${port}/x`;
    const file = join(dir.path, 'mcp.yaml');
    const text = `servers:\n  remote:\n    url: "${url}"\n  user:\n    url: "${withUser}"\n`;
    writeFileSync(file, text, { mode: 0o600 });
    const runs = await Promise.all([
      runCli(['servers', 'list'], { cwd: dir.path }),
      runCli(['servers', 'list', '--json'], { cwd: dir.path }),
      runCli(['config', 'show'], { cwd: dir.path }),
      runCli(['config', 'show', '--json'], { cwd: dir.path }),
      runCli(['doctor', '--timeout', '5s'], { cwd: dir.path }),
      runCli(['doctor', '--json', '--timeout', '5s'], { cwd: dir.path }),
    ]);
    const masked = `http://127.0.0.1:${port}/mcp?api_key=<masked>&access_key=<masked>&m=1`;
    for (const run of runs) {
      const all = run.stdout + run.stderr;
      for (const secret of [PASSWORD, QUERY_SECRET, ACCESS_KEY]) expect(all).not.toContain(secret);
      // doctor names the URL it cannot connect to; the one with user info is refused unconnected.
      // The table cuts its COMMAND/URL column at 60 characters.
      expect(all).toContain(run === runs[0] ? masked.slice(0, 55) : masked);
    }
    const [table, json, show] = runs;
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(`http://<masked>@127.0.0.1:${port}/x`);
    expect(show.stdout).toContain(`http://<masked>@127.0.0.1:${port}/x`);
    const rows = JSON.parse(json.stdout) as { result: { target: string }[] };
    expect(rows.result.map((row) => row.target)).toEqual([
      masked,
      `http://<masked>@127.0.0.1:${port}/x`,
    ]);
  });
});

describe('syntax errors quote no configured value', () => {
  const SECRET = 'ghp_missingColonSecretC4n4ry';
  const cases: [name: string, text: string, message: string][] = [
    [
      '.mcp.json',
      `{"mcpServers": {"a": {"command": "node", "env": {"TOKEN" "${SECRET}"}}}}\n`,
      "JSON: ':' was expected, found a string",
    ],
    [
      'other.json',
      `{"mcpServers": {"a": {"command": "node", "env": {"TOKEN": ${SECRET}}}}}\n`,
      'JSON: invalid symbol, found a word',
    ],
    [
      'mcp.yaml',
      `servers:\n  a:\n    command: node\n    env:\n      TOKEN: *${SECRET}\n`,
      "YAML: Unresolved alias (the anchor must be set before the alias) (quote a value that starts with '*', '&' or '!')",
    ],
  ];
  for (const [name, text, message] of cases)
    it(`${name}: ${message}`, async () => {
      using dir = tempDir();
      const file = join(dir.path, name);
      writeFileSync(file, text, { mode: 0o600 });
      const table = await runCli(['config', 'validate', file], { cwd: dir.path });
      const json = await runCli(['config', 'validate', file, '--json'], { cwd: dir.path });
      for (const run of [table, json]) {
        expect(run.code).toBe(1);
        expect(run.stdout + run.stderr).not.toContain(SECRET.slice(0, 8));
      }
      expect(table.stdout).toContain(message);
    });
});
