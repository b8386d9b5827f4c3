/**
 * The example of docs/state.md's PostgreSQL section runs for real against the built package
 * (through its `mcp-host/postgres` export) and a throwaway cluster, in a Node process of its own
 * that must exit on its own.
 */
import { existsSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  codeBlockAfter,
  exampleVariables,
  repoRoot,
  startExample,
  variablesRead,
} from '../helpers/doc-examples.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { postgresForTests } from '../helpers/postgres-cluster.js';

const docs = readFileSync(`${repoRoot}docs/state.md`, 'utf8');
const heading = '## PostgreSQL: one store for a fleet';

const postgres = postgresForTests();

describe('docs/state.md: PostgreSQL', () => {
  it('the example opens the store, hears of its own write and closes', async () => {
    expect(existsSync(`${repoRoot}dist/postgres/index.js`), 'npm test builds dist/ first').toBe(
      true,
    );
    await using _guard = leakGuard();
    const code = codeBlockAfter(docs, heading);
    expect(variablesRead(code).every((name) => exampleVariables(docs).has(name))).toBe(true);
    const url = postgres.url();
    await using example = startExample(code, { MCP_HOST_POSTGRES_URL: url });
    const { code: exitCode, stdout, stderr } = await example.exit;
    expect(stderr).toBe('');
    expect(exitCode).toBe(0);
    expect(stdout).toBe('changed: fs\n');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ value: string }>(
        "SELECT value FROM mcp_host.state_values WHERE namespace = 'pins' AND key = 'fs'",
      );
      expect(rows).toEqual([{ value: '{"approved":true}' }]);
    } finally {
      await client.end();
    }
  });
});
