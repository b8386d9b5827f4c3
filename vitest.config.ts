import { defineConfig } from 'vitest/config';

/**
 * Tests named *.node22.test.ts (in src/ or test/) need Node 22 (the agent libraries whose current majors require it:
 * openai 7, ai 7, @mastra/core). Their project exists only on Node 22+, so a plain `vitest run`
 * on Node 20 leaves them out; `npm run test:node22` runs them under Node 22 (scripts/node22.mjs).
 */
const NODE22_TESTS = ['test/**/*.node22.test.ts', 'src/**/*.node22.test.ts'];
const onNode22 = Number(process.versions.node.split('.')[0]) >= 22;

// Real processes and the timing-sensitive crash detection share two cores: one file at a time.
// (`fileParallelism` is a root-only option, ignored and a type error here.)
const oneFileAtATime = { forks: { singleFork: true } };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          exclude: [...NODE22_TESTS, '**/node_modules/**'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          // The fleet tests run on their own: `npm run test:fleet` (vitest.fleet.config.ts).
          exclude: [...NODE22_TESTS, 'test/fleet/**', '**/node_modules/**'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          poolOptions: oneFileAtATime,
        },
      },
      ...(onNode22
        ? [
            {
              test: {
                name: 'node22',
                include: NODE22_TESTS,
                testTimeout: 60_000,
                hookTimeout: 60_000,
                poolOptions: oneFileAtATime,
              },
            },
          ]
        : []),
    ],
  },
});
