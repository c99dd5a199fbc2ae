import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.ts';

// Frozen: never edit a migration that has shipped; add a new one.
// Issue 32 § 4 on PostgreSQL: an instance takes a key's tokens in blocks (a lease) and spends them in memory, so
// most requests cost no statement. gateway_rate_lease_many grants each asked key up to `counts` tokens of its
// bucket at once (as many as its burst holds; 0 when none), and takes a negative count back (a lease expired
// unused), never past what the bucket would hold if left alone. Same buckets and GCRA as gateway_rate_take
// (migration 021), in key order (two instances' batches never lock the same buckets in opposite orders); one
// answer per asked key in the order asked. Nothing for SQLite (its buckets are in the gateway's memory).
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`
    CREATE FUNCTION gateway_rate_lease_many(keys integer[], steps double precision[], counts integer[], burst double precision)
    RETURNS TABLE (ord integer, granted integer, wait_ms double precision, remaining integer) LANGUAGE plpgsql AS $$
    DECLARE
      item record;
      t double precision := extract(epoch FROM clock_timestamp()) * 1000;
      current double precision;
      room integer;
    BEGIN
      FOR item IN
        SELECT u.key, u.step, u.n, u.ord FROM unnest(keys, steps, counts) WITH ORDINALITY AS u(key, step, n, ord)
        ORDER BY u.key, u.ord
      LOOP
        INSERT INTO rate_limit_buckets (chave_id, tat) VALUES (item.key, t) ON CONFLICT (chave_id) DO NOTHING;
        SELECT b.tat INTO current FROM rate_limit_buckets b WHERE b.chave_id = item.key FOR UPDATE;
        IF current < t OR current > t + burst THEN current := t; END IF;
        IF item.n < 0 THEN
          granted := item.n;
          current := greatest(t, current + item.n * item.step);
        ELSE
          -- A hair of tolerance: a quota whose step is not a whole number of milliseconds still fits its burst.
          room := greatest(0, floor((burst - (current - t)) / item.step + 1e-9))::integer;
          granted := least(item.n, room);
          current := current + granted * item.step;
        END IF;
        UPDATE rate_limit_buckets SET tat = current WHERE chave_id = item.key;
        ord := item.ord;
        wait_ms := greatest(0, current + item.step - burst - t);
        remaining := greatest(0, floor((burst - (current - t)) / item.step + 1e-9))::integer;
        RETURN NEXT;
      END LOOP;
    END $$`.execute(db);
}
