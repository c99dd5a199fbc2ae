import path from 'node:path';
import SQLite from 'better-sqlite3';
import { DEFAULT_AUDIT_MAX_BYTES, DEFAULT_AUDIT_MAX_ROWS } from '../server/config.ts';
import { diskMarginBytes } from '../server/audit/journal-budget.ts';
import { journalPagesOf, SHM_BYTES, walShareBytes } from '../server/audit/sqlite-journal.ts';

/**
 * Issue 30 § 6: how many hours of the bench's signed load the default journal budget holds. The journal's pages in
 * gateway.db (SQLite's page map, as the budget counts them) and its entries are read before and after the bench's
 * signed GET run on the gateway's data dir (a read-only connection beside the running gateway); their growth per
 * entry, times the run's rate, gives the hours until the default 2 GiB budget refuses /v1. A reported figure, never
 * a timed assertion.
 */
export interface JournalSnapshot {
  pagesBytes: number;
  entries: number;
  weightBytes: number;
}

export function journalSnapshot(dataDir: string): JournalSnapshot {
  const sqlite = new SQLite(path.join(dataDir, 'gateway.db'), { readonly: true, fileMustExist: true });
  try {
    const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
    const totals = sqlite
      .prepare(
        "SELECT coalesce(sum(rows), 0) AS rows, coalesce(sum(bytes), 0) AS bytes FROM audit_budget WHERE kind <> 'unattributed'",
      )
      .get() as { rows: number; bytes: number };
    return { pagesBytes: journalPagesOf(sqlite) * pageSize, entries: totals.rows, weightBytes: totals.bytes };
  } finally {
    sqlite.close();
  }
}

export interface JournalCapacity {
  /** Entries the run journaled, and what each took on disk (pages) and against the weight budget. */
  entries: number;
  disk_bytes_per_request: number;
  weight_bytes_per_request: number;
  /** The run's rate of signed requests. */
  req_s: number;
  /** Entries the default budget holds before /v1 is refused, and which of its limits comes first. */
  requests_held: number;
  binding: 'disk' | 'weight' | 'rows';
  hours_at_bench_rate: number;
  /** The same for the soak rate (300 signed req/s), for comparison with its 2.6 hours. */
  hours_at_300_req_s: number;
}

export function journalCapacity(before: JournalSnapshot, after: JournalSnapshot, rps: number): JournalCapacity {
  const entries = after.entries - before.entries;
  const disk = (after.pagesBytes - before.pagesBytes) / entries;
  const weight = (after.weightBytes - before.weightBytes) / entries;
  const max = DEFAULT_AUDIT_MAX_BYTES;
  // The footprint's line: the budget less half its margin (where /v1 is refused), the WAL's share and its index.
  const diskRoom = max - Math.floor(diskMarginBytes(max) / 2) - walShareBytes(max) - SHM_BYTES;
  const held = { disk: diskRoom / disk, weight: max / weight, rows: DEFAULT_AUDIT_MAX_ROWS };
  const binding = (Object.keys(held) as Array<keyof typeof held>).reduce((a, b) => (held[a] <= held[b] ? a : b));
  const requests = Math.floor(held[binding]);
  return {
    entries,
    disk_bytes_per_request: Math.round(disk),
    weight_bytes_per_request: Math.round(weight),
    req_s: Math.round(rps),
    requests_held: requests,
    binding,
    hours_at_bench_rate: Number((requests / rps / 3600).toFixed(2)),
    hours_at_300_req_s: Number((requests / 300 / 3600).toFixed(2)),
  };
}

export const journalCapacityLine = (c: JournalCapacity): string =>
  `journal budget (default 2 GiB): signed GET /v1/ping took ${c.disk_bytes_per_request} B on disk per journaled request ` +
  `(${c.weight_bytes_per_request} B of entry weight; ${c.entries} entries measured) → ${c.requests_held.toLocaleString('en-US')} requests ` +
  `(${c.binding} limit first) = ${c.hours_at_bench_rate} h at the bench's ${c.req_s} req/s, ${c.hours_at_300_req_s} h at 300 req/s`;
