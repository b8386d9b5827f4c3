#!/usr/bin/env node
// Runs the tests that need Node 22 (files named *.node22.test.ts: the agent adapters proven with
// openai 7, ai 7, @mastra/core and the libraries built on them) under the Node 22 binary from
// scripts/node22.mjs, as vitest's `node22` project. Extra arguments go to vitest.
//
// Usage: node scripts/test-node22.mjs [vitest args...]
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findNode22 } from './node22.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let node22;
try {
  node22 = findNode22();
} catch (error) {
  console.error(`test:node22: ${error.message}`);
  process.exit(2);
}
const vitest = path.join(root, 'node_modules/vitest/vitest.mjs');
const child = spawn(node22, [vitest, 'run', '--project', 'node22', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)));
