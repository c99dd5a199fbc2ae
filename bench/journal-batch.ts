import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sqliteBatchCommitter, type AuditRecord, type BatchCommitter } from '../server/audit/audit-writer.ts';
import { postgresBatchCommitter } from '../server/audit/postgres-journal.ts';
import { sqliteJournalStore } from '../server/audit/sqlite-journal.ts';
import { openGatewayDb } from '../server/db/database.ts';
import { openPostgresDb } from '../server/db/postgres.ts';
import { log, treeCpuMs, withOwnPostgres } from './harness.ts';

/**
 * What one journal batch costs, apart from HTTP (issue 32 § 3 and § 4: the signed ping's journal is most of its gap
 * to bare Fastify, and PostgreSQL's to gateway.db): batches of signed-ping entries of 1, 4, 16 and 64 through the
 * journal's own committers, on gateway.db and on a PostgreSQL of its own, CPU per batch (this process, and
 * PostgreSQL's processes for PostgreSQL), then a line fitted through them: the fixed cost of a commit and the cost
 * of each entry in it. A group commit of k entries costs each request fixed ÷ k + per entry. `BENCH_ONLY=journal-batch
 * npm run bench`; BENCH_JOURNAL_BATCH_ENTRIES (default 8,000) entries per size and database, bounded.
 */
const SIZES = [1, 4, 16, 64];
const ENTRIES = Number(process.env.BENCH_JOURNAL_BATCH_ENTRIES ?? 8_000);

export interface JournalBatchRow {
  database: 'gateway.db' | 'PostgreSQL';
  size: number;
  cpu_us_per_batch: number;
  cpu_us_per_entry: number;
}

export interface JournalBatchFit {
  database: 'gateway.db' | 'PostgreSQL';
  fixed_us_per_commit: number;
  us_per_entry: number;
}

let sequence = 0;
/** A signed ping's entry as the audit plugin writes it (a verified 200, its redacted headers and answer). */
function pingEntry(): AuditRecord {
  sequence += 1;
  return {
    request_id: `bench-batch-${sequence.toString(36).padStart(12, '0')}`,
    ts: new Date().toISOString(),
    source: 'api',
    tenant_id: 1,
    tenant_slug: 'bench',
    chave_id: 1,
    operator_id: null,
    method: 'GET',
    path: '/v1/ping',
    status: 200,
    error_code: null,
    duracao_ms: 1,
    client_ip: '127.0.0.1',
    body: null,
    detail: null,
    error_message: null,
    response_body: '{"data":{"pong":true,"ts":"2026-12-03T14:00:00.000Z"},"meta":{},"error":null}',
    request_headers: '{"x-api-key":"ck_bench_0000000000","x-timestamp":"1796306400","x-signature":"[redacted]"}',
    journal_class: 'verified',
  };
}

async function measure(
  database: JournalBatchRow['database'],
  committer: BatchCommitter<unknown>,
  serverCpuMs: () => number,
): Promise<JournalBatchRow[]> {
  const rows: JournalBatchRow[] = [];
  // Warm-up: JIT, statement caches, the pool's connections.
  for (let i = 0; i < 200; i++) await committer.commit([pingEntry(), pingEntry()], []);
  for (const size of SIZES) {
    const batches = Math.max(50, Math.floor(ENTRIES / size));
    const prepared = Array.from({ length: batches }, () => Array.from({ length: size }, pingEntry));
    const before = process.cpuUsage();
    const serverBefore = serverCpuMs();
    for (const batch of prepared) await committer.commit(batch, []);
    const own = process.cpuUsage(before);
    const cpuUs = own.user + own.system + (serverCpuMs() - serverBefore) * 1000;
    rows.push({
      database,
      size,
      cpu_us_per_batch: Math.round(cpuUs / batches),
      cpu_us_per_entry: Math.round((cpuUs / (batches * size)) * 10) / 10,
    });
  }
  return rows;
}

/** Least squares through (size, CPU per batch): the intercept is a commit's fixed cost, the slope an entry's. */
export function fitBatchCost(rows: readonly JournalBatchRow[]): { fixed: number; perEntry: number } {
  const n = rows.length;
  const mx = rows.reduce((s, r) => s + r.size, 0) / n;
  const my = rows.reduce((s, r) => s + r.cpu_us_per_batch, 0) / n;
  const sxy = rows.reduce((s, r) => s + (r.size - mx) * (r.cpu_us_per_batch - my), 0);
  const sxx = rows.reduce((s, r) => s + (r.size - mx) ** 2, 0);
  const perEntry = sxx === 0 ? 0 : sxy / sxx;
  return { fixed: my - perEntry * mx, perEntry };
}

export async function measureJournalBatches(): Promise<{ rows: JournalBatchRow[]; fits: JournalBatchFit[] }> {
  const rows: JournalBatchRow[] = [];
  const sqliteDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-batch-sqlite-'));
  try {
    log(`journal batches on gateway.db: ${SIZES.join(', ')} entries, ${ENTRIES} entries each…`);
    const opened = await openGatewayDb(sqliteDir);
    try {
      // The WAL's policy the gateway sets (its checkpoints), as the journal store sets it at start.
      sqliteJournalStore(opened.sqlite, 2 * 1024 ** 3);
      rows.push(
        ...(await measure('gateway.db', sqliteBatchCommitter(opened.sqlite) as BatchCommitter<unknown>, () => 0)),
      );
    } finally {
      await opened.close();
    }
  } finally {
    rmSync(sqliteDir, { recursive: true, force: true });
  }
  log('journal batches on PostgreSQL (its own server; its processes’ CPU counted)…');
  await withOwnPostgres('gw-bench-batch-pg-', async (server) => {
    const opened = await openPostgresDb({ url: server.url, poolSize: 4, applicationName: 'bench journal-batch' });
    const committer = postgresBatchCommitter(opened.pool);
    try {
      rows.push(...(await measure('PostgreSQL', committer as BatchCommitter<unknown>, () => treeCpuMs(server.pid))));
    } finally {
      await committer.close?.();
      await opened.close();
    }
  });
  const fits = (['gateway.db', 'PostgreSQL'] as const).map((database) => {
    const { fixed, perEntry } = fitBatchCost(rows.filter((r) => r.database === database));
    return { database, fixed_us_per_commit: Math.round(fixed), us_per_entry: Math.round(perEntry * 10) / 10 };
  });
  return { rows, fits };
}

export function journalBatchTable({ rows, fits }: Awaited<ReturnType<typeof measureJournalBatches>>): string {
  const lines = ['| database | entries a batch | CPU µs per batch | CPU µs per entry |', '|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.database} | ${r.size} | ${r.cpu_us_per_batch} | ${r.cpu_us_per_entry} |`);
  lines.push('');
  for (const f of fits)
    lines.push(
      `${f.database}: a commit costs ${f.fixed_us_per_commit} µs of CPU, each entry in it ${f.us_per_entry} µs ` +
        `(a request's share in a batch of k: ${f.fixed_us_per_commit} ÷ k + ${f.us_per_entry} µs)`,
    );
  return lines.join('\n');
}
