import { defineConfig } from 'vitest/config';

/**
 * The fleet tests (test/fleet/): gateway replicas behind HAProxy on a shared PostgreSQL cluster,
 * with tens of clients. They start a dozen processes and take about a minute, so the default
 * `vitest run` leaves them out (vitest.config.ts excludes the folder); `npm run test:fleet` runs
 * them, after `npm test` in `.ci/run`. They use the built CLI (dist/: `npm run build` first).
 */
export default defineConfig({
  test: {
    name: 'fleet',
    include: ['test/fleet/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    poolOptions: { forks: { singleFork: true } },
  },
});
