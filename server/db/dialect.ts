import { PostgresAdapter, type Kysely } from 'kysely';

/** Which database a Kysely instance (or a transaction of one) talks to: migrations and the few dialect-aware queries ask. */
export function isPostgres(db: Pick<Kysely<unknown>, 'getExecutor'>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
