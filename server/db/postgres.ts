import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database, GatewayDb } from './database.ts';
import { migrateToLatest } from './database.ts';
import { postgresMigrations } from './migrations/index.ts';

// int8 (bigint: epoch milliseconds, the journal's byte totals and ids) as a JavaScript number, like SQLite's
// integers: every value the gateway keeps in one is far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
// numeric (sums and counts of aggregates) likewise.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value: string) => Number(value));

/** The gateway's state on PostgreSQL (DATABASE_URL): the pool behind Kysely, and one connection that listens. */
export interface OpenedPostgresDb {
  kind: 'postgres';
  db: GatewayDb;
  pool: pg.Pool;
  /** Subscribes to a NOTIFY channel; the handler gets each payload. Returns the unsubscribe. */
  listen(channel: string, handler: (payload: string) => void): () => void;
  /** Whether notifications on `channel` are heard now (its LISTEN is in place on a live connection). */
  listening(channel: string): boolean;
  /** Runs after the listening connection was lost and made again: what was notified meanwhile is unknown. */
  onReconnect(handler: () => void): () => void;
  close(): Promise<void>;
}

export interface PostgresOptions {
  url: string;
  poolSize: number;
  /** application_name: how this instance shows in pg_stat_activity. */
  applicationName?: string;
  /** Log lines of the listener (lost connection, reconnects). */
  log?: (message: string) => void;
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/** Opens the pool, applies the migrations (one instance at a time: an advisory lock) and starts the listener. */
export async function openPostgresDb(options: PostgresOptions): Promise<OpenedPostgresDb> {
  const log = options.log ?? ((message: string) => console.warn(`database: ${message}`));
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    application_name: options.applicationName ?? 'clinic-gateway',
    // A pooled connection a server restart broke is replaced on its next use.
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client's error (the server went away) must not crash the process: the pool drops it.
  pool.on('error', (error) => log(`idle connection lost: ${error.message}`));
  // A connection lost while checked out (inside a transaction, between two statements) emits 'error' on its client,
  // where pg-pool listens only while it is idle: without a listener of our own that is an uncaught exception that
  // ends the process. Its statement in flight fails on its own, and the pool drops the client when it comes back.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrateLocked(pool, db);
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw error;
  }

  const handlers = new Map<string, Set<(payload: string) => void>>();
  const reconnectHandlers = new Set<() => void>();
  let listener: pg.Client | null = null;
  /** Channels whose LISTEN the current listener confirmed. */
  let heard = new Set<string>();
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  const connectListener = async (): Promise<void> => {
    const client = new pg.Client({
      connectionString: options.url,
      application_name: `${options.applicationName ?? 'clinic-gateway'}-listen`,
    });
    client.on('notification', (message) => {
      for (const handler of handlers.get(message.channel) ?? []) handler(message.payload ?? '');
    });
    client.on('error', (error) => {
      if (closed) return;
      log(`the listening connection was lost (${error.message}); reconnecting`);
      scheduleReconnect();
    });
    client.on('end', () => {
      if (!closed && listener === client) scheduleReconnect();
    });
    await client.connect();
    const confirmed = new Set<string>();
    for (const channel of handlers.keys()) {
      await client.query(`LISTEN ${channel}`);
      confirmed.add(channel);
    }
    listener = client;
    heard = confirmed;
  };
  const scheduleReconnect = () => {
    if (closed || retry) return;
    const lost = listener;
    listener = null;
    heard = new Set();
    void lost?.end().catch(() => undefined);
    retry = setTimeout(() => {
      retry = null;
      connectListener().then(
        () => {
          for (const handler of reconnectHandlers) handler();
        },
        (error: Error) => {
          log(`reconnecting the listener failed (${error.message}); trying again`);
          scheduleReconnect();
        },
      );
    }, 500);
    retry.unref();
  };
  try {
    await connectListener();
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw error;
  }

  return {
    kind: 'postgres',
    db,
    pool,
    listen(channel, handler) {
      if (!CHANNEL.test(channel)) throw new Error(`invalid channel name ${channel}`);
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
        const client = listener;
        void client?.query(`LISTEN ${channel}`).then(
          () => {
            if (listener === client) heard.add(channel);
          },
          (error: Error) => log(`LISTEN ${channel} failed: ${error.message}`),
        );
      }
      set.add(handler);
      return () => set.delete(handler);
    },
    listening: (channel) => listener !== null && heard.has(channel),
    onReconnect(handler) {
      reconnectHandlers.add(handler);
      return () => reconnectHandlers.delete(handler);
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await listener?.end().catch(() => undefined);
      await db.destroy();
    },
  };
}

/** Several instances start together: the migrations run under an advisory lock, so one applies them and the others wait. */
async function migrateLocked(pool: pg.Pool, db: GatewayDb): Promise<void> {
  const client = await pool.connect();
  try {
    // 0x67617465 ('gate'): the key of the gateway's migration lock.
    await client.query('SELECT pg_advisory_lock(1734440037)');
    try {
      await migrateToLatest(db, postgresMigrations, 'the PostgreSQL database');
    } finally {
      await client.query('SELECT pg_advisory_unlock(1734440037)');
    }
  } finally {
    client.release();
  }
}

/** Statement texts given a name so far: the hot paths' fixed texts, a handful; past the cap a text goes unnamed. */
const preparedNames = new Map<string, string>();
const PREPARED_NAMES_CAP = 256;

/**
 * A hot path's statement as a named one: pg prepares it once on each pooled connection (on first use there) and
 * then only binds and executes it, instead of PostgreSQL parsing and planning its text on every call. For texts
 * fixed in the code (and those whose shape, not size, varies): a text made per call would fill the cap and go
 * unnamed (BENCH_ONLY=journal-batch measures what it saves).
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = preparedNames.get(text);
  if (name === undefined && preparedNames.size < PREPARED_NAMES_CAP) {
    name = `gw_${preparedNames.size}`;
    preparedNames.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}

/** `work` in one transaction on one pooled connection: committed when it resolves, rolled back when it throws. */
export async function inPostgresTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
