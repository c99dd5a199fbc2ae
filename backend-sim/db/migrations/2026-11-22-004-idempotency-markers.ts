import { sql, type Kysely, type Migration } from 'kysely';

// Frozen. Exactly once across crashes: the marker of a write executed under the gateway's
// idempotency token, committed with the write and its response (docs/architecture.md).
const statements = [
  `CREATE TABLE idempotency_markers (
     token TEXT PRIMARY KEY,
     method TEXT NOT NULL,
     path TEXT NOT NULL,
     status INTEGER,
     content_type TEXT,
     response TEXT,
     created_at INTEGER NOT NULL
   ) WITHOUT ROWID`,
  'CREATE INDEX idempotency_markers_created_at ON idempotency_markers (created_at)',
];

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
