import { defineConfig } from 'vitest/config';

/**
 * The gateway's store and HTTP tests that run a second time with the gateway's state on PostgreSQL (issue 24:
 * every store change is tested on both databases), plus the PostgreSQL-only ones (test/server/db/postgres*, the
 * cluster). Those left out read gateway.db directly (its pragmas, files and SQLite-only failures: disk full through
 * max_page_count, a damaged WAL, quick_check), or test the backend, the seed, the console or the launcher, which
 * do not depend on the gateway's database.
 */
const ON_POSTGRES = [
  'test/server/routes/**/*.test.ts',
  'test/server/auth/**/*.test.ts',
  'test/server/rate-limit/**/*.test.ts',
  'test/server/http/**/*.test.ts',
  'test/server/metrics/**/*.test.ts',
  'test/server/storage/presigner.test.ts',
  'test/server/storage/storage-stack.test.ts',
  'test/server/admin/**/*.test.ts',
  'test/server/operators/**/*.test.ts',
  'test/server/audit/audit-query.test.ts',
  'test/server/audit/refusal-attribution.test.ts',
  'test/server/audit/journal-prune.test.ts',
  'test/server/audit/journal-budget-reread.test.ts',
  'test/server/audit/journal-received.test.ts',
  'test/server/audit/har.test.ts',
  'test/server/audit/journal-stats.test.ts',
  'test/server/audit/journal-rollup.test.ts',
  'test/server/alerts/**/*.test.ts',
  'test/appliance/cli/stats.test.ts',
  'test/server/idempotency/idempotency-plugin.test.ts',
  'test/server/tracing/**/*.test.ts',
  'test/server/reliability/exactly-once.test.ts',
  'test/server/db/**/*.test.ts',
  'test/server/proxy/**/*.test.ts',
  'test/appliance/cluster*.test.ts',
  'test/appliance/cli/copy-to-postgres.test.ts',
  'test/appliance/cli/clones.test.ts',
  'test/appliance/cli/journal.test.ts',
  'test/appliance/cli/keys-expiry.test.ts',
];
const POSTGRES_ONLY = [
  'test/server/db/postgres*.test.ts',
  'test/appliance/cluster*.test.ts',
  'test/appliance/cli/copy-to-postgres.test.ts',
];

export default defineConfig({
  test: {
    // Each test file starts its own stack (S3, backend-sim, gateway) on free ports.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    fileParallelism: true,
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'], exclude: POSTGRES_ONLY } },
      {
        extends: true,
        test: { name: 'postgres', include: ON_POSTGRES, globalSetup: ['test/helpers/postgres-global-setup.ts'] },
      },
    ],
  },
});
