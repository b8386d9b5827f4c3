/**
 * The agent loop's examples in docs/agents.md run as they are (against the built package), with
 * the official filesystem and "everything" servers over stdio: each prints what the document says.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlockAfter, repoRoot, startExample } from '../helpers/doc-examples.js';
import { leakGuard } from '../helpers/leak-guard.js';

const docs = readFileSync(join(repoRoot, 'docs/agents.md'), 'utf8');

describe('docs/agents.md', () => {
  it('the builder example prints what the document shows', async () => {
    await using _guard = leakGuard();
    await using example = startExample(codeBlockAfter(docs, '### An agent in a few lines'));
    const done = await example.exit;
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(done.stdout).toBe(codeBlockAfter(docs, '### An agent in a few lines', 0, 'text'));
  });

  it('the sampling example asks the approval hook and prints what the document shows', async () => {
    await using _guard = leakGuard();
    const heading = '### Input the server asks for';
    await using example = startExample(codeBlockAfter(docs, heading));
    const done = await example.exit;
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(done.stdout).toBe(codeBlockAfter(docs, heading, 0, 'text'));
  });
});
