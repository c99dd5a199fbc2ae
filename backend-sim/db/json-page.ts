// A page of a list as JSON text built by SQLite (docs/decisions.md L32-1): the items' `json_object(…)` generated
// from the contract schema of an item (contracts/schemas), its keys in the schema's order, each value an SQL
// expression the list names; beside it, in the same statement, the count of rows that fail what the schema checks
// (types, nullability, safe integers, enum values), generated from the same schema. No row object is built in
// JavaScript: the statement answers one row, the page's text and that count.
import type { z } from 'zod';
import { queryRows } from './statements.ts';

/**
 * The SQL of each key of an item: an expression (for a boolean, a condition: true when it holds, false
 * otherwise, NULL included, like the views' `v === 1`), or a nested list (`array`: the rows of `from`, in
 * `orderBy` order, each an object of `fields`).
 */
export type JsonFields = { readonly [key: string]: string | JsonArray };
export interface JsonArray {
  readonly fields: JsonFields;
  /** `FROM … WHERE …`, correlated to the outer row by its alias. */
  readonly from: string;
  readonly orderBy: string;
}

/** A page's `data` written by SQLite, for the item schema it was generated from. */
export class JsonPage {
  constructor(
    readonly item: z.ZodType,
    readonly text: string,
  ) {}
}

interface Generated {
  /** The `json_object(…)` of one row. */
  object: string;
  /** A condition true when the row passes every check of the schema. */
  ok: string;
}

/** The largest integer JavaScript holds exactly: zod's `.int()` (`safeint`) refuses any beyond it. */
const SAFE = '9007199254740991';

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  entries?: Record<string, string | number>;
  checks?: Array<{ _zod: { def: { check: string; format?: string; value?: unknown; inclusive?: boolean } } }>;
};
const defOf = (schema: z.ZodType) => schema._zod.def as unknown as Def;

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * The SQL of an object schema's items from `fields`. Throws for a schema it cannot write exactly as the
 * compiled serializer would (an optional key, a non-integer number, a string length or pattern, a union…):
 * such a list keeps its rows (it cannot use this), and a test calls every list that does.
 */
export function generate(schema: z.ZodType, fields: JsonFields, where = 'item', columns?: DeclaredColumns): Generated {
  const def = defOf(schema);
  if (def.type !== 'object' || !def.shape) throw new Error(`${where}: not an object schema (${def.type})`);
  const names = Object.keys(def.shape);
  const extra = Object.keys(fields).filter((k) => !names.includes(k));
  if (extra.length) throw new Error(`${where}: fields outside the schema: ${extra.join(', ')}`);
  const pairs: string[] = [];
  const oks: string[] = [];
  for (const name of names) {
    const field = fields[name];
    if (field === undefined) throw new Error(`${where}.${name}: no SQL for this key`);
    const [value, ok] = keySql(def.shape[name], field, `${where}.${name}`, columns);
    pairs.push(`${quote(name)}, ${value}`);
    if (ok !== 'TRUE') oks.push(ok);
  }
  return { object: `json_object(${pairs.join(', ')})`, ok: oks.length ? oks.join(' AND ') : 'TRUE' };
}

/** The value and the check of one key. */
function keySql(
  schema: z.ZodType,
  field: string | JsonArray,
  where: string,
  columns?: DeclaredColumns,
  nullable = false,
): [string, string] {
  const def = defOf(schema);
  if (def.type === 'nullable') {
    const inner = defOf(def.innerType!);
    if (typeof field !== 'string' || inner.type === 'nullable') throw new Error(`${where}: unsupported nullable`);
    const [value, ok] = keySql(def.innerType!, field, where, columns, true);
    const e = `(${field})`;
    // A NULL boolean stays null (the condition of a non-null one reads NULL as false).
    const nullable = inner.type === 'boolean' ? `CASE WHEN ${e} IS NULL THEN NULL ELSE ${value} END` : value;
    return [nullable, ok === 'TRUE' ? 'TRUE' : `(${e} IS NULL OR ${ok})`];
  }
  if (def.type === 'array') {
    if (typeof field === 'string') throw new Error(`${where}: an array needs its rows`);
    const item = generate(def.element!, field.fields, `${where}[]`);
    const rows = field.from;
    // The nested rows' checks are the outer row's (it is written only when they pass).
    return [
      `(SELECT json_group_array(${item.object} ORDER BY ${field.orderBy}) ${rows})`,
      item.ok === 'TRUE' ? 'TRUE' : `NOT EXISTS (SELECT 1 ${rows} AND NOT (${item.ok}))`,
    ];
  }
  if (typeof field !== 'string') throw new Error(`${where}: rows given for a ${def.type}`);
  const e = `(${field})`;
  switch (def.type) {
    case 'string': {
      if (def.checks?.length) throw new Error(`${where}: string checks are not written in SQL`);
      const column = declared(columns, field);
      if (column && textAffinity(column.type) && (nullable || column.notnull)) return [e, 'TRUE'];
      return [e, `typeof${e} = 'text'`];
    }
    case 'enum': {
      const values = Object.values(def.entries ?? {});
      if (!values.every((v) => typeof v === 'string')) throw new Error(`${where}: a non-string enum`);
      // IN of text values: a number or a BLOB never equals a text (no affinity applies to an expression).
      return [e, `${e} IN (${values.map((v) => quote(v as string)).join(', ')})`];
    }
    case 'number': {
      const checks = (def.checks ?? []).map((c) => c._zod.def);
      // SQLite writes a REAL as 1.0 or 1.0e+300 where JSON.stringify writes 1 and 1e+300: integers only.
      if (!checks.some((c) => c.check === 'number_format' && c.format === 'safeint'))
        throw new Error(`${where}: only integers are written in SQL`);
      const column = declared(columns, field);
      const rowid = column?.pk === 1 && column.type.toUpperCase() === 'INTEGER';
      const ok = [...(rowid ? [] : [`typeof${e} = 'integer'`]), `${e} BETWEEN -${SAFE} AND ${SAFE}`];
      for (const c of checks) {
        if (c.check === 'number_format') continue;
        if ((c.check === 'greater_than' || c.check === 'less_than') && Number.isSafeInteger(c.value)) {
          const op = c.check === 'greater_than' ? (c.inclusive ? '>=' : '>') : c.inclusive ? '<=' : '<';
          ok.push(`${e} ${op} ${c.value}`);
        } else throw new Error(`${where}: the check ${c.check} is not written in SQL`);
      }
      return [e, `(${ok.join(' AND ')})`];
    }
    case 'boolean':
      if (def.checks?.length) throw new Error(`${where}: boolean checks`);
      return [`json(CASE WHEN ${e} THEN 'true' ELSE 'false' END)`, 'TRUE'];
    default:
      throw new Error(`${where}: ${def.type} is not written in SQL`);
  }
}

/** A column as the table declares it (`pragma_table_info`). */
export interface DeclaredColumn {
  type: string;
  notnull: number;
  pk: number;
}
export type DeclaredColumns = ReadonlyMap<string, DeclaredColumn>;

/** SQLite's TEXT affinity: a number written there is stored as its text; only a BLOB stays what it is. */
const textAffinity = (type: string) => !/INT/i.test(type) && /CHAR|CLOB|TEXT/i.test(type);

/**
 * What the declared column of a key's bare expression already guarantees: a TEXT column holds text, a BLOB
 * (json_object refuses it: the statement fails and the list answers its rows) or NULL (refused by NOT NULL); an
 * INTEGER PRIMARY KEY holds an integer. The check of such a key is left out; every other key is checked per row.
 */
function declared(columns: DeclaredColumns | undefined, field: string): DeclaredColumn | undefined {
  return /^[a-z_][a-z0-9_]*$/.test(field) ? columns?.get(field) : undefined;
}

/** A list's page statement: its item schema and the SQL of its keys, generated once (on its first page). */
export class JsonPageQuery {
  readonly #item: z.ZodType;
  readonly #fields: JsonFields;
  readonly #table: string | undefined;
  #select: string | undefined;

  /** `table`: the table the keys' bare column names are read from, whose declared columns spare their checks. */
  constructor(item: z.ZodType, fields: JsonFields, table?: string) {
    this.#item = item;
    this.#fields = fields;
    this.#table = table;
    // Generated once without the declared columns, so a schema it cannot write fails at load, not at a request.
    generate(item, fields);
  }

  /** The page of no rows (past the last page). */
  get empty(): JsonPage {
    return new JsonPage(this.#item, '[]');
  }

  /** The statement of the rows of `from` (`FROM … WHERE …`, no ORDER BY), in `orderBy` order. */
  sql(from: string, orderBy: string, columns?: DeclaredColumns): string {
    if (this.#select === undefined) {
      const { object, ok } = generate(this.#item, this.#fields, 'item', columns);
      // A row that fails a check is counted; the page is then answered from its rows.
      this.#select = `SELECT json_group_array(${object} ORDER BY %ORDER%) AS data, ${ok === 'TRUE' ? '0' : `COALESCE(SUM(NOT (${ok})), 0)`} AS bad`;
    }
    return `${this.#select.replace('%ORDER%', orderBy)} ${from}`;
  }

  /**
   * The page, or null when a row fails the schema's checks (or holds what json_object refuses, a BLOB): then the
   * list answers its rows as before, which its route refuses to stamp (the gateway refuses the answer), as for
   * any answer outside the contract.
   */
  async page(
    db: Parameters<typeof queryRows>[0],
    from: string,
    orderBy: string,
    params: readonly unknown[],
  ): Promise<JsonPage | null> {
    return (await this.pageWithTotal(db, from, orderBy, params)).page;
  }

  /**
   * The page and, when `count` (a statement answering one `total`) is given, the total counted in the same
   * statement: one snapshot, one statement, no connection held across two.
   */
  async pageWithTotal(
    db: Parameters<typeof queryRows>[0],
    from: string,
    orderBy: string,
    params: readonly unknown[],
    count?: readonly [string, readonly unknown[]],
  ): Promise<{ page: JsonPage | null; total: number }> {
    let columns: DeclaredColumns | undefined;
    if (this.#select === undefined && this.#table) {
      const declaredRows = await queryRows<DeclaredColumn & { name: string }>(
        db,
        'SELECT name, type, "notnull", pk FROM pragma_table_info(?)',
        [this.#table],
      );
      columns = new Map(declaredRows.map(({ name, ...column }) => [name, column]));
    }
    let sql = this.sql(from, orderBy, columns);
    if (count) sql = sql.replace(' AS bad ', ` AS bad, (${count[0]}) AS total `);
    let row: { data: string; bad: number; total?: number };
    try {
      [row] = await queryRows<{ data: string; bad: number; total?: number }>(
        db,
        sql,
        count ? [...count[1], ...params] : params,
      );
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_ERROR') return { page: null, total: 0 };
      throw error;
    }
    return { page: row.bad === 0 ? new JsonPage(this.#item, row.data) : null, total: row.total ?? 0 };
  }
}
