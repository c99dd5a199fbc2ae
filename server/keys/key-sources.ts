import type SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import type { OpenedPostgresDb } from '../db/postgres.ts';
import type { KeyTenantRow } from './keys.repository.ts';
import type { KeyCacheControl, KeySource } from './keys.service.ts';

const KEY_WITH_TENANT = `SELECT k.*, t.id AS t_id, t.slug AS t_slug, t.nome AS t_nome, t.status AS t_status, t.is_sandbox AS t_is_sandbox
  FROM api_keys k LEFT JOIN tenants t ON t.id = k.tenant_id WHERE k.api_key = `;

/**
 * gateway.db, one process: the per-request lookup is one prepared statement. Another connection (the CLI)
 * committing to the file shows in `PRAGMA data_version`, read once per turn of the event loop: the requests
 * parsed in one turn arrived together, before any commit the CLI makes after them, so one read serves them all.
 */
export function sqliteKeySource(sqlite: SQLite.Database) {
  return (cache: KeyCacheControl): KeySource => {
    const lookup = sqlite.prepare(`${KEY_WITH_TENANT}?`);
    const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
    let seenVersion = -1;
    let readThisTurn = false;
    return {
      remembersUnknown: false,
      beforeRead() {
        if (readThisTurn) return;
        readThisTurn = true;
        setImmediate(() => {
          readThisTurn = false;
        });
        const version = dataVersion.get() as number;
        if (version !== seenVersion) {
          cache.invalidate();
          seenVersion = version;
        }
      },
      find: (apiKey) => lookup.get(apiKey) as KeyTenantRow | undefined,
      cacheable: () => true,
    };
  };
}

/** Channel of the NOTIFY that migration 021's triggers send when a key or a clinic changes (payload: the api_key, or `*`). */
export const KEY_CHANGES_CHANNEL = 'gateway_keys';

/**
 * The cluster's PostgreSQL: a cache miss is one query. Every instance listens on KEY_CHANGES_CHANNEL, which the
 * database itself notifies from triggers on api_keys and tenants, so a change made through any instance, the CLI
 * or plain SQL empties that key (or every key, for a clinic) on every instance within the notification's delay.
 * While the listening connection is down nothing is cached (each request reads the database), and when it is
 * back the cache starts empty: a notification missed meanwhile cannot leave a revoked key usable.
 */
export function postgresKeySource(opened: OpenedPostgresDb) {
  return (cache: KeyCacheControl): KeySource => {
    opened.listen(KEY_CHANGES_CHANNEL, (payload) =>
      cache.invalidate(payload === '*' || payload === '' ? undefined : payload),
    );
    opened.onReconnect(() => cache.invalidate());
    let heard = false;
    return {
      remembersUnknown: true,
      // A lost listener may have missed a change: what the cache holds is dropped at the first read after.
      beforeRead() {
        const listening = opened.listening(KEY_CHANGES_CHANNEL);
        if (heard && !listening) cache.invalidate();
        heard = listening;
      },
      find: async (apiKey) => {
        const { rows } = await sql<KeyTenantRow>`${sql.raw(KEY_WITH_TENANT)}${apiKey}`.execute(opened.db);
        return rows[0];
      },
      cacheable: () => opened.listening(KEY_CHANGES_CHANNEL),
    };
  };
}
