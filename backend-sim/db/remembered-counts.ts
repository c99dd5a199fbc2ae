import type { Db } from './database.ts';
import { queryRows } from './statements.ts';

/**
 * Exact list totals counted once per database state (issue 25 § 4, decisions P25-B1). A total the rows must
 * be walked for (the name search counts its matches in the trigram index: ~0.1 µs each, 8,412 SILVAs in a
 * large clinic) is remembered under the state it was counted in, and answered again while that state lasts:
 * the connection's `total_changes()` (every row this connection inserted, updated or deleted, triggers
 * included, even rolled back) and `PRAGMA data_version` (changes committed by any other connection).
 * Any write anywhere in the tenant thus forgets every remembered total: coarse, but exact without a
 * statement on the write path. The state is read before counting, on the held connection, so a change
 * committed elsewhere meanwhile can only make a total newer than its state, never older.
 */
const STATE_COLUMNS = 'total_changes() AS mudancas, v.data_version AS versao';
/** The state alone, or with whether the name search's queue (migration 007) has updates pending. */
const STATE = `SELECT 0 AS pendente, ${STATE_COLUMNS} FROM pragma_data_version v`;
const STATE_AND_SEARCH_QUEUE = `SELECT EXISTS (SELECT 1 FROM pacientes_nome_busca_fila) AS pendente, ${STATE_COLUMNS} FROM pragma_data_version v`;

/** Totals remembered per tenant database (its Kysely instance), least recently used out past the bound. */
const MAX_TOTALS = 256;
const remembered = new WeakMap<object, Map<string, { state: string; total: number }>>();

export interface DatabaseState {
  /** 1 when the name search's queue has updates the index does not have yet (only read when asked). */
  pendente: number;
  key: string;
}

/** The state on `conn` (a connection held for the whole list), and the search queue's if `searchQueue`. */
export async function databaseState(conn: Db, searchQueue: boolean): Promise<DatabaseState> {
  const [s] = await queryRows<{ pendente: number; mudancas: number; versao: number }>(
    conn,
    searchQueue ? STATE_AND_SEARCH_QUEUE : STATE,
    [],
  );
  return { pendente: s.pendente, key: `${s.mudancas}:${s.versao}` };
}

/**
 * The total `sql` answers (one row, column `total`) in `state`: remembered for `owner`'s database, or
 * counted now on `conn` and remembered.
 */
export async function rememberedTotal(
  owner: Db,
  conn: Db,
  state: DatabaseState,
  sql: string,
  params: readonly unknown[],
): Promise<number> {
  let totals = remembered.get(owner);
  if (!totals) {
    totals = new Map();
    remembered.set(owner, totals);
  }
  const key = `${sql}\n${JSON.stringify(params)}`;
  const known = totals.get(key);
  if (known) {
    totals.delete(key);
    if (known.state === state.key) {
      totals.set(key, known);
      return known.total;
    }
  }
  const [{ total }] = await queryRows<{ total: number }>(conn, sql, params);
  if (totals.size >= MAX_TOTALS) totals.delete(totals.keys().next().value!);
  totals.set(key, { state: state.key, total });
  return total;
}
