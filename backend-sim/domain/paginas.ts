import type { Db } from '../db/database.ts';
import { queryRows } from '../db/statements.ts';

/**
 * Totals and deep pages of a newest-first list (exams by realization date, reports by report date) from
 * its trigger-kept per-date counts: a total is a sum over at most a few thousand small rows, and the
 * page at `offset` is found from the counts (the month, then the date, then an OFFSET within that one
 * date) instead of stepping over `offset` index entries.
 */
export interface DateCounts {
  table: 'exames_contagem' | 'laudos_contagem';
  filtro: string;
  valor: number;
  /** Inclusive date range, as the list's period filter. */
  inicio?: string;
  fim?: string;
}

function from(c: DateCounts): { sql: string; params: unknown[] } {
  let sql = `FROM ${c.table} WHERE filtro = ? AND valor = ?`;
  const params: unknown[] = [c.filtro, c.valor];
  if (c.inicio) {
    sql += ' AND data >= ?';
    params.push(c.inicio);
  }
  if (c.fim) {
    sql += ' AND data <= ?';
    params.push(c.fim);
  }
  return { sql, params };
}

export async function countedTotal(conn: Db, c: DateCounts): Promise<number> {
  const { sql, params } = from(c);
  const [row] = await queryRows<{ total: number }>(conn, `SELECT COALESCE(SUM(n), 0) AS total ${sql}`, params);
  return row.total;
}

/**
 * The (date, id) of the row at position `offset` (newest first). `idOnDate(date, k)` answers the id of
 * the k-th row (0-based, id descending) of one date under the list's filters.
 */
export async function pageStart(
  conn: Db,
  c: DateCounts,
  offset: number,
  idOnDate: (data: string, k: number) => Promise<number | undefined>,
): Promise<{ data: string; id: number }> {
  const { sql, params } = from(c);
  // substr(data, 1, 7) is monotonic in data, so months in this order hold the dates in list order.
  const months = await queryRows<{ mes: string; n: number }>(conn, `SELECT substr(data, 1, 7) AS mes, SUM(n) AS n ${sql} GROUP BY mes ORDER BY mes DESC`, params);
  const month = locate(months, offset, 0);
  if (!month) throw new Error(`${c.table}: offset beyond the counted total`);
  const days = await queryRows<{ data: string; n: number }>(conn, `SELECT data, n ${sql} AND substr(data, 1, 7) = ? ORDER BY data DESC`, [...params, month.row.mes]);
  const day = locate(days, offset, month.before);
  if (!day) throw new Error(`${c.table}: month and date counts disagree`);
  const id = await idOnDate(day.row.data, offset - day.before);
  if (id === undefined) throw new Error(`${c.table}: a date count is above its rows`);
  return { data: day.row.data, id };
}

/** The bucket holding position `offset`, and how many rows come before it, given `before` rows before the first bucket. */
function locate<T extends { n: number }>(buckets: T[], offset: number, before: number): { row: T; before: number } | null {
  for (const row of buckets) {
    if (before + row.n > offset) return { row, before };
    before += row.n;
  }
  return null;
}
