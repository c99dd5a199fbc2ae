import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The suite's PostgreSQL (the `postgres` project in vitest.config.ts: test/helpers/postgres-global-setup.ts starts
 * one from Debian's binaries and sets TEST_DATABASE_URL). Each test stack gets a database of its own, dropped after.
 */
export const testDatabaseUrl = (): string | undefined => process.env.TEST_DATABASE_URL || undefined;

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh, empty database on the suite's server (the gateway migrates it when it opens it). */
export async function createTestDatabase(serverUrl = testDatabaseUrl()): Promise<TestDatabase> {
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set: this test needs the suite PostgreSQL (npx vitest run --project postgres)');
  const name = `gw_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
