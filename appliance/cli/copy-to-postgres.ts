import path from 'node:path';
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { loadConfig } from '../../server/config.ts';
import { openGatewayDb } from '../../server/db/database.ts';
import { openPostgresDb } from '../../server/db/postgres.ts';
import { redactDatabaseUrl, startLocalPostgres } from '../postgres.ts';
import { readRuntimeFile } from '../runtime-file.ts';

/**
 * The gateway's tables in the order their references need, each with what orders its rows. audit_probe and
 * rate_limit_buckets hold nothing worth moving; storage_faults do not exist on gateway.db (they are in memory).
 */
const TABLES: Array<{ name: string; orderBy: string; identity?: string }> = [
  { name: 'tenants', orderBy: 'id', identity: 'id' },
  { name: 'operators', orderBy: 'id', identity: 'id' },
  { name: 'api_keys', orderBy: 'id', identity: 'id' },
  { name: 'operator_sessions', orderBy: 'token_hash' },
  { name: 'operator_tokens', orderBy: 'id', identity: 'id' },
  { name: 'console_login_failures', orderBy: 'username_hash, address' },
  { name: 'idempotency_keys', orderBy: 'chave_id, idem_key, method, path' },
  { name: 'audit_unattributed', orderBy: 'id', identity: 'id' },
  { name: 'audit_log', orderBy: 'id', identity: 'id' },
];
const ROWS_PER_STATEMENT = 500;

export class CopyRefused extends Error {}

export interface CopyReport {
  tables: Array<{ name: string; rows: number }>;
  ms: number;
}

/**
 * Copies the gateway state of a single-process appliance (DATA_DIR/gateway.db) into an empty PostgreSQL database,
 * in one transaction: all of it or nothing. Rows keep their ids, so keys keep their ids and sealed secrets (the
 * associated data names the id; the master key stays DATA_DIR/master.key or MASTER_KEY), the journal keeps its
 * arrival order, and idempotency entries keep replaying. Refused while a gateway runs on DATA_DIR (its state
 * would move on after the copy) and into a database that already holds a clinic.
 */
export async function copyToPostgres(options: {
  dataDir: string;
  url: string;
  onProgress?: (table: string, done: number, total: number) => void;
}): Promise<CopyReport> {
  const started = Date.now();
  const file = path.join(options.dataDir, 'gateway.db');
  if (!existsSync(file)) throw new CopyRefused(`${file} does not exist: there is no single-process state to copy`);
  const running = readRuntimeFile(options.dataDir);
  if (running)
    throw new CopyRefused(
      `an appliance (pid ${running.pid}) is running on ${options.dataDir}: stop it first, so nothing changes during the copy`,
    );
  // Both at their latest migration: the same columns on both sides (the PostgreSQL baseline mirrors SQLite's 001-020).
  const source = await openGatewayDb(options.dataDir);
  const target = await openPostgresDb({
    url: options.url,
    poolSize: 2,
    applicationName: 'clinic-gateway copy-to-postgres',
  });
  try {
    const clinics = await target.db
      .selectFrom('tenants')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(clinics.n) > 0)
      throw new CopyRefused(
        `${redactDatabaseUrl(options.url)} already holds ${clinics.n} clinic(s): copy into an empty database`,
      );
    const tables: CopyReport['tables'] = [];
    const client = await target.pool.connect();
    try {
      await client.query('BEGIN');
      // What migrations put there (the journal's empty totals) is replaced by the copy.
      await client.query('DELETE FROM audit_budget');
      for (const table of [...TABLES, { name: 'audit_budget', orderBy: 'kind' }]) {
        const targetColumns = new Set(
          (
            await client.query<{ column_name: string }>(
              'SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = current_schema()',
              [table.name],
            )
          ).rows.map((r) => r.column_name),
        );
        const columns = (source.sqlite.prepare(`PRAGMA table_info(${table.name})`).all() as Array<{ name: string }>)
          .map((c) => c.name)
          .filter((c) => targetColumns.has(c));
        const total = (source.sqlite.prepare(`SELECT count(*) AS n FROM ${table.name}`).get() as { n: number }).n;
        const select = source.sqlite
          .prepare(`SELECT ${columns.join(', ')} FROM ${table.name} ORDER BY ${table.orderBy}`)
          .raw(true);
        let done = 0;
        let batch: unknown[][] = [];
        const flush = async () => {
          if (batch.length === 0) return;
          const values: unknown[] = [];
          const tuples = batch.map((row) => `(${row.map((value) => `$${values.push(value)}`).join(', ')})`);
          await client.query(`INSERT INTO ${table.name} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, values);
          done += batch.length;
          batch = [];
          options.onProgress?.(table.name, done, total);
        };
        for (const row of select.iterate() as Iterable<unknown[]>) {
          batch.push(row);
          if (batch.length === ROWS_PER_STATEMENT) await flush();
        }
        await flush();
        if (table.identity) {
          // The next id continues after the copied ones.
          await client.query(
            `SELECT setval(pg_get_serial_sequence('${table.name}', '${table.identity}'), greatest((SELECT max(${table.identity}) FROM ${table.name}), 1))`,
          );
        }
        tables.push({ name: table.name, rows: done });
      }
      // Nothing half done: every table's count checked before the commit.
      for (const { name, rows } of tables) {
        const { rows: counted } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${name}`);
        if (counted[0].n !== rows) throw new Error(`${name}: ${counted[0].n} rows in PostgreSQL after copying ${rows}`);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    return { tables, ms: Date.now() - started };
  } finally {
    await target.close();
    await source.close();
  }
}

/** `db copy-to-postgres [--url URL]`: moves an appliance's gateway state to the PostgreSQL a cluster will share. */
export function addDatabaseCommands(program: Command): void {
  const db = program.command('db').description('the gateway database');
  db.command('copy-to-postgres')
    .description(
      'copy DATA_DIR/gateway.db (clinics, keys with their secrets, operators, sessions, tokens, idempotency entries, the journal) into an empty PostgreSQL database, in one transaction; stop the appliance first',
    )
    .option(
      '--url <url>',
      "the target database (default: DATABASE_URL; without either, the cluster's own PostgreSQL under DATA_DIR, started for the copy)",
    )
    .option('--json', 'machine-readable output')
    .action(async (opts: { url?: string; json?: boolean }) => {
      const config = loadConfig();
      let url = opts.url ?? (config.database.kind === 'postgres' ? config.database.url : undefined);
      if (url !== undefined && !/^postgres(ql)?:\/\//.test(url))
        throw new CopyRefused('--url must be a postgres:// (or postgresql://) URL');
      // No target named: the one `npm run cluster` starts under DATA_DIR (initialised now if it is new), for the copy only.
      const local =
        url === undefined
          ? await startLocalPostgres({
              dataDir: config.dataDir,
              port: 0,
              log: (line) => process.stderr.write(`${line}\n`),
            })
          : null;
      url ??= local!.url;
      const bar =
        opts.json || !process.stderr.isTTY
          ? null
          : new cliProgress.SingleBar(
              { format: '{table} [{bar}] {value}/{total}', stream: process.stderr },
              cliProgress.Presets.shades_classic,
            );
      let current = '';
      const report = await copyToPostgres({
        dataDir: config.dataDir,
        url,
        onProgress: (table, done, total) => {
          if (!bar) return;
          if (table !== current) {
            if (current) bar.stop();
            current = table;
            bar.start(total, 0, { table });
          }
          bar.update(done);
        },
      }).finally(async () => {
        bar?.stop();
        await local?.stop();
      });
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return;
      }
      process.stderr.write(
        `copied ${path.join(config.dataDir, 'gateway.db')} into ${redactDatabaseUrl(url)} in ${report.ms} ms:\n` +
          report.tables.map((t) => `  ${t.name}: ${t.rows}`).join('\n') +
          '\nStart the cluster on it (DATABASE_URL, or npm run cluster); keys keep working with their secrets while DATA_DIR/master.key (or MASTER_KEY) stays the same.\n',
      );
    });
}
