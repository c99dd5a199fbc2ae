import type SQLite from 'better-sqlite3';
import type { Parameter } from './journal-sql.ts';

// The journal's rollup (migration 026; docs/decisions.md § G1): per clinic, key and minute, the calls per status
// class, a latency histogram and the refusals per error code of `source = 'api'` entries with a clinic. A batch is
// aggregated in memory, then one upsert per distinct (clinic, key, minute) and per distinct code, in the batch's own
// transaction (audit-writer.ts on gateway.db, postgres-journal.ts on PostgreSQL): the rollup never counts an entry
// that was not committed, nor misses one that was. Several gateways sharing PostgreSQL add to the same rows.

/** Upper bounds (ms, inclusive) of the latency buckets lat0…lat10; lat11 holds the slower calls. */
export const LATENCY_BOUNDS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000] as const;
export const LATENCY_BUCKETS = LATENCY_BOUNDS_MS.length + 1;
export const LATENCY_COLUMNS = Array.from({ length: LATENCY_BUCKETS }, (_, i) => `lat${i}`);
/** `chave_id` of the clinic's own row per minute: the sum of its keys' rows (and of its calls that named none, 0). */
export const CLINIC_ROW = -1;
/** Rows older than this (from the newest minute a batch writes) are swept: the charts' 24 h and an hour to spare. */
export const ROLLUP_KEEP_MINUTES = 25 * 60;

const COUNT_COLUMNS = ['calls', 's2xx', 's3xx', 's4xx', 's5xx', ...LATENCY_COLUMNS] as const;
export const MINUTE_COLUMNS = ['tenant_id', 'chave_id', 'minute', ...COUNT_COLUMNS] as const;

export function latencyBucket(ms: number): number {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) if (ms <= LATENCY_BOUNDS_MS[i]) return i;
  return LATENCY_BOUNDS_MS.length;
}

/** What the rollup needs of a journal entry. */
export interface RollupEntry {
  source: string;
  tenant_id: number | null;
  chave_id: number | null;
  ts: string;
  status: number;
  error_code: string | null;
  duracao_ms: number;
  /** Unattributed requests named no existing key: they are counted in their groups, not here. */
  journal_class?: string;
}

export interface BatchRollup {
  /** One row per (clinic, key, minute), values in MINUTE_COLUMNS order, in key order (no lock cycles between gateways). */
  minutes: Array<Array<number | string>>;
  /** [tenant_id, chave_id, minute, code, count], in key order. */
  codes: Array<[number, number, string, string, number]>;
  /** The newest minute of the batch (the sweep's reference), or null. */
  newest: string | null;
}

const compareKeys = (a: ReadonlyArray<number | string>, b: ReadonlyArray<number | string>, n: number): number => {
  for (let i = 0; i < n; i++) {
    if (a[i] < b[i]) return -1;
    if (a[i] > b[i]) return 1;
  }
  return 0;
};

/** The batch's rollup, aggregated in memory (a handful of rows for a batch of hundreds of entries). */
export function rollupOf(rows: Iterable<RollupEntry>): BatchRollup {
  const minutes = new Map<string, Array<number | string>>();
  const codes = new Map<string, [number, number, string, string, number]>();
  let newest: string | null = null;
  for (const r of rows) {
    if (r.source !== 'api' || r.tenant_id === null || r.journal_class === 'unattributed') continue;
    const minute = r.ts.slice(0, 16);
    if (newest === null || minute > newest) newest = minute;
    const klass = Math.floor(r.status / 100);
    const bucket = latencyBucket(r.duracao_ms);
    // The key's row and the clinic's (CLINIC_ROW): a clinic's charts read one row a minute, however many keys it has.
    for (const chave of [r.chave_id ?? 0, CLINIC_ROW]) {
      const key = `${r.tenant_id}|${chave}|${minute}`;
      let row = minutes.get(key);
      if (!row) {
        row = [r.tenant_id, chave, minute, ...COUNT_COLUMNS.map(() => 0)];
        minutes.set(key, row);
      }
      (row[3] as number) += 1;
      if (klass >= 2 && klass <= 5) (row[2 + klass] as number) += 1;
      (row[8 + bucket] as number) += 1;
      if (r.status >= 400) {
        const code = r.error_code ?? '';
        const codeKey = `${key}|${code}`;
        const counted = codes.get(codeKey);
        if (counted) counted[4] += 1;
        else codes.set(codeKey, [r.tenant_id, chave, minute, code, 1]);
      }
    }
  }
  return {
    minutes: [...minutes.values()].sort((a, b) => compareKeys(a, b, 3)),
    codes: [...codes.values()].sort((a, b) => compareKeys(a, b, 4)),
    newest,
  };
}

/** The minute ROLLUP_KEEP_MINUTES before `minute` (`YYYY-MM-DDTHH:MM`): rows before it are swept. */
export function sweepCutoff(minute: string): string {
  return new Date(Date.parse(`${minute}:00.000Z`) - ROLLUP_KEEP_MINUTES * 60_000).toISOString().slice(0, 16);
}

/** The upserts and sweeps in either database's parameters. */
export function rollupStatements(p: Parameter) {
  let n = 0;
  const values = MINUTE_COLUMNS.map(() => p(++n)).join(', ');
  return {
    upsertMinute: `INSERT INTO journal_minutes AS m (${MINUTE_COLUMNS.join(', ')}) VALUES (${values})
      ON CONFLICT (tenant_id, chave_id, minute) DO UPDATE SET ${COUNT_COLUMNS.map((c) => `${c} = m.${c} + excluded.${c}`).join(', ')}`,
    upsertCode: `INSERT INTO journal_minute_codes AS c (tenant_id, chave_id, minute, code, count) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)})
      ON CONFLICT (tenant_id, chave_id, minute, code) DO UPDATE SET count = c.count + excluded.count`,
    sweepMinutes: `DELETE FROM journal_minutes WHERE minute < ${p(1)}`,
    sweepCodes: `DELETE FROM journal_minute_codes WHERE minute < ${p(1)}`,
  };
}

/**
 * What the journal's prune removes of the rollup with the entries (journal-prune.ts): the minutes wholly before
 * `before`, of one clinic (by slug, as the prune names it) or of all.
 */
export function rollupPruneStatements(p: Parameter) {
  const where = (tenant: boolean) =>
    `minute < ${p(1)}${tenant ? ` AND tenant_id IN (SELECT id FROM tenants WHERE slug = ${p(2)})` : ''}`;
  return {
    all: [
      `DELETE FROM journal_minutes WHERE ${where(false)}`,
      `DELETE FROM journal_minute_codes WHERE ${where(false)}`,
    ],
    tenant: [
      `DELETE FROM journal_minutes WHERE ${where(true)}`,
      `DELETE FROM journal_minute_codes WHERE ${where(true)}`,
    ],
  };
}

/**
 * gateway.db: writes a batch's rollup on the batch's connection, inside its transaction (the caller's), and sweeps
 * once per new minute. Synchronous, like the rest of the batch.
 */
export function sqliteRollupWriter(sqlite: SQLite.Database): (rollup: BatchRollup) => void {
  const sql = rollupStatements(() => '?');
  const upsertMinute = sqlite.prepare(sql.upsertMinute);
  const upsertCode = sqlite.prepare(sql.upsertCode);
  const sweepMinutes = sqlite.prepare(sql.sweepMinutes);
  const sweepCodes = sqlite.prepare(sql.sweepCodes);
  let swept = '';
  return (rollup) => {
    for (const row of rollup.minutes) upsertMinute.run(...row);
    for (const row of rollup.codes) upsertCode.run(...row);
    if (rollup.newest !== null && rollup.newest > swept) {
      swept = rollup.newest;
      const cutoff = sweepCutoff(rollup.newest);
      sweepMinutes.run(cutoff);
      sweepCodes.run(cutoff);
    }
  };
}
