/**
 * The example of docs/observability.md, run as it is (through the built package's `mcp-host`,
 * `mcp-host/gateway` and `mcp-host/otel`) with the reference everything server: it prints one
 * trace of three spans, each the child of the next.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  codeBlockAfter,
  exampleVariables,
  repoRoot,
  startExample,
  variablesRead,
} from '../helpers/doc-examples.js';
import { leakGuard } from '../helpers/leak-guard.js';

const require = createRequire(import.meta.url);
const docs = readFileSync(join(repoRoot, 'docs/observability.md'), 'utf8');
const SPAN_LINE = /^(tools\/call \S+) trace=(\w{32}) span=(\w{16}) parent=(\w+) replica=(\S+)$/;

describe('docs/observability.md', () => {
  it('reads only the example variables the document lists', () => {
    const example = codeBlockAfter(docs, '## Example: one trace from client to backend');
    expect(variablesRead(example)).toEqual([...exampleVariables(docs)]);
  });

  it('the example prints one trace: backend request -> gateway SERVER span -> client span', async () => {
    await using _guard = leakGuard();
    await using example = startExample(
      codeBlockAfter(docs, '## Example: one trace from client to backend'),
      {
        MCP_EVERYTHING_SERVER:
          require.resolve('@modelcontextprotocol/server-everything/dist/index.js'),
      },
    );
    const done = await example.exit;
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    const spans = example.lines.map((line) => SPAN_LINE.exec(line)!);
    expect(spans.map((match) => match?.[1])).toEqual([
      'tools/call echo',
      'tools/call mcp__everything__echo',
      'tools/call mcp__everything__echo',
    ]);
    const [backend, served, client] = spans;
    expect(new Set(spans.map((match) => match[2])).size).toBe(1);
    expect(backend![4]).toBe(served![3]);
    expect(served![4]).toBe(client![3]);
    expect(client![4]).toBe('none');
    expect(served![5]).toBe('replica-1');
  }, 60_000);
});
