import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.ts';

// Frozen: never edit a migration that has shipped; add a new one.
// Issue 25 on PostgreSQL: the rate limit of every request taken in one turn of an instance's event loop is one
// statement instead of one each. The takes run in key order (so two instances' batches never lock the same
// buckets in opposite orders) and answer in the order they were asked. Nothing for SQLite (its buckets are
// in the gateway's memory).
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`
    CREATE FUNCTION gateway_rate_take_many(keys integer[], steps double precision[], burst double precision)
    RETURNS TABLE (ord integer, allowed boolean, wait_ms double precision, remaining integer) LANGUAGE plpgsql AS $$
    DECLARE
      item record;
      taken record;
    BEGIN
      FOR item IN SELECT k.key, k.step, k.ord FROM unnest(keys, steps) WITH ORDINALITY AS k(key, step, ord) ORDER BY k.key, k.ord LOOP
        SELECT * INTO taken FROM gateway_rate_take(item.key, item.step, burst);
        ord := item.ord;
        allowed := taken.allowed;
        wait_ms := taken.wait_ms;
        remaining := taken.remaining;
        RETURN NEXT;
      END LOOP;
    END $$`.execute(db);
}
