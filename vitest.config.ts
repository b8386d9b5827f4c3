import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Real processes and the timing-sensitive crash detection share two cores: one file at
          // a time. (`fileParallelism` is a root-only option, ignored and a type error here.)
          poolOptions: { forks: { singleFork: true } },
        },
      },
    ],
  },
});
