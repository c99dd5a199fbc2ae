import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/**
 * The suite's PostgreSQL in the `postgres` project of vitest.config.ts (test/helpers/postgres-global-setup.ts starts
 * one from Debian's binaries and provides its URL); undefined in the `sqlite` project. Each test stack gets a
 * database of its own there, dropped after.
 */
export const testDatabaseUrl = (): string | undefined => {
  try {
    return inject('testDatabaseUrl') || undefined;
  } catch {
    return undefined;
  }
};

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh, empty database on the suite's server (the gateway migrates it when it opens it). */
export async function createTestDatabase(serverUrl = testDatabaseUrl()): Promise<TestDatabase> {
  if (!serverUrl)
    throw new Error(
      'no suite PostgreSQL here: this test runs in the postgres project (npx vitest run --project postgres)',
    );
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
