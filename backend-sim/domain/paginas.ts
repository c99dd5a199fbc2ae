import type { Compilable, SelectQueryBuilder } from 'kysely';
import type { Database, Db } from '../db/database.ts';
import type { JsonPage, JsonPageQuery } from '../db/json-page.ts';
import type { Listed } from '../lib/http.ts';
import { queryRows } from '../db/statements.ts';

/**
 * A page of a list built with Kysely: its rows and the count of `filtered` (the list's query with its joins
 * and filters, before its select, order and limit), run side by side.
 */
export async function pageWithTotal<R>(
  rows: Promise<R[]>,
  // biome-ignore lint/suspicious/noExplicitAny: any list's builder (a Kysely builder is invariant in its tables and selection)
  filtered: SelectQueryBuilder<Database, any, any>,
): Promise<{ rows: R[]; total: number }> {
  const [page, count] = await Promise.all([
    rows,
    filtered.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows: page, total: Number(count.total) };
}

/** A list built with Kysely: its page (select, order, limit, offset), `filtered` (what it counts), its order. */
export interface KyselyList {
  page: Compilable;
  // biome-ignore lint/suspicious/noExplicitAny: any list's builder (a Kysely builder is invariant in its tables and selection)
  filtered: SelectQueryBuilder<Database, any, any>;
  /** The page's ORDER BY again, over the page's columns (the aggregate writes the items in it). */
  orderBy: string;
}

/**
 * The page of a list built with Kysely written as JSON by SQLite (decisions L32-1) from its page's rows (a
 * derived table named `page`, which nested lists correlate to), with its total; `page` null when a row is
 * outside the contract.
 */
export async function jsonPageWithTotal(
  db: Db,
  json: JsonPageQuery,
  list: KyselyList,
): Promise<{ page: JsonPage | null; total: number }> {
  const { sql, parameters } = list.page.compile();
  const [page, count] = await Promise.all([
    json.page(db, `FROM (${sql}) AS page`, list.orderBy, parameters),
    list.filtered.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { page, total: Number(count.total) };
}

/** A page written by SQLite, or (`page` null: a row outside the contract) the list's rows through its view. */
export async function jsonOrRows(
  json: { page: JsonPage | null; total: number },
  rows: () => Promise<Listed>,
): Promise<Listed> {
  return json.page ? { data: json.page, total: json.total } : rows();
}

/** A repository's page as a service answers it: each row through its view (row -> wire). */
export function pageOf<R, V>(
  page: { rows: readonly R[]; total: number },
  view: (row: R) => V,
): { data: V[]; total: number } {
  return { data: page.rows.map((row) => view(row)), total: page.total };
}

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
  const months = await queryRows<{ mes: string; n: number }>(
    conn,
    `SELECT substr(data, 1, 7) AS mes, SUM(n) AS n ${sql} GROUP BY mes ORDER BY mes DESC`,
    params,
  );
  const month = locate(months, offset, 0);
  if (!month) throw new Error(`${c.table}: offset beyond the counted total`);
  const days = await queryRows<{ data: string; n: number }>(
    conn,
    `SELECT data, n ${sql} AND substr(data, 1, 7) = ? ORDER BY data DESC`,
    [...params, month.row.mes],
  );
  const day = locate(days, offset, month.before);
  if (!day) throw new Error(`${c.table}: month and date counts disagree`);
  const id = await idOnDate(day.row.data, offset - day.before);
  if (id === undefined) throw new Error(`${c.table}: a date count is above its rows`);
  return { data: day.row.data, id };
}

/** The bucket holding position `offset`, and how many rows come before it, given `before` rows before the first bucket. */
function locate<T extends { n: number }>(
  buckets: T[],
  offset: number,
  before: number,
): { row: T; before: number } | null {
  for (const row of buckets) {
    if (before + row.n > offset) return { row, before };
    before += row.n;
  }
  return null;
}

/** A hand-written `FROM … WHERE …` of a list's table and the values of its placeholders. */
export interface Filtered {
  from: string;
  params: readonly unknown[];
}

/**
 * A list shown newest first by (date, id): its table, its date column, whether its id queries name the
 * columns with the table (they may join another table that has the same columns), and the `SELECT … FROM
 * <table> JOIN …` of the rows a page shows.
 */
export interface NewestFirstList {
  table: 'exames' | 'laudos';
  date: string;
  qualified: boolean;
  rows: string;
}

/** What one request asks of such a list: its filters, and how its total and page are found. */
export interface NewestFirstFilters {
  /** The trigger-kept counts that give the total, or null: the total is a COUNT(*) of `total`. */
  counts: DateCounts | null;
  total: Filtered;
  /** The filters a page's ids are chosen with, once the total is known (a large total can choose another index). */
  page: (total: number) => Filtered;
  /** Whether the page starts from the counts (with `counts` only) rather than at an OFFSET. */
  startFromCounts: boolean;
  /** The filters that find the row at a position within one date, for that start; default: the page's. */
  dated?: Filtered;
}

/**
 * One page of the list and its total, read on one held connection (so the total and the page see the same
 * rows). The page's ids are chosen first, then its rows are read: by OFFSET, or, when `startFromCounts`,
 * from the (date, id) the per-date counts place at `offset` (pageStart), read on from there by key.
 */
export async function newestFirstPage<R>(
  db: Db,
  list: NewestFirstList,
  at: { limit: number; offset: number },
  filters: NewestFirstFilters,
): Promise<{ rows: R[]; total: number }> {
  const column = (name: string) => (list.qualified ? `${list.table}.${name}` : name);
  const [id, date] = [column('id'), column(list.date)];
  const order = `ORDER BY ${date} DESC, ${id} DESC`;
  return db.connection().execute(async (conn) => {
    const total = filters.counts
      ? await countedTotal(conn, filters.counts)
      : (
          await queryRows<{ total: number }>(
            conn,
            `SELECT COUNT(*) AS total ${filters.total.from}`,
            filters.total.params,
          )
        )[0].total;
    if (at.offset >= total) return { rows: [], total };
    const { from, params } = filters.page(total);
    let page = `SELECT ${id} ${from} ${order} LIMIT ?`;
    let pageParams = [...params, at.limit];
    if (filters.startFromCounts && filters.counts) {
      const dated = filters.dated ?? { from, params };
      const start = await pageStart(conn, filters.counts, at.offset, async (data, k) => {
        const sql = `SELECT ${id} ${dated.from} AND ${date} = ? ORDER BY ${id} DESC LIMIT 1 OFFSET ?`;
        return (await queryRows<{ id: number }>(conn, sql, [...dated.params, data, k]))[0]?.id;
      });
      page = `SELECT ${id} ${from} AND (${date}, ${id}) <= (?, ?) ${order} LIMIT ?`;
      pageParams = [...params, start.data, start.id, at.limit];
    } else if (at.offset > 0) {
      page += ' OFFSET ?';
      pageParams.push(at.offset);
    }
    const rows = await queryRows<R>(
      conn,
      `${list.rows} WHERE ${list.table}.id IN (${page}) ORDER BY ${list.table}.${list.date} DESC, ${list.table}.id DESC`,
      pageParams,
    );
    return { rows, total };
  });
}
