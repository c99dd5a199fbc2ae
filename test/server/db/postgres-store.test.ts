import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openPostgresDb, type OpenedPostgresDb } from '../../../server/db/postgres.ts';
import { KeysService } from '../../../server/keys/keys.service.ts';
import { postgresKeySource } from '../../../server/keys/key-sources.ts';
import { SecretBox } from '../../../server/keys/secret-box.ts';
import { leaseBlock, PostgresKeyRateLimiter } from '../../../server/rate-limit/key-limiter.ts';
import { PostgresIdempotencyStore } from '../../../server/idempotency/postgres-idempotency.store.ts';
import { operationIdentity, type OperationKey } from '../../../server/idempotency/idempotency.store.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/postgres.ts';
import { postgresBatchCommitter } from '../../../server/audit/postgres-journal.ts';
import type { AuditRecord } from '../../../server/audit/audit-writer.ts';

// Issue 24: the gateway's hot-path stores on PostgreSQL, each against a real server (the suite's), with a second
// connection standing for another instance, the CLI or plain SQL.
let database: TestDatabase;
let opened: OpenedPostgresDb;
let other: pg.Pool;
const masterKey = randomBytes(32);

beforeAll(async () => {
  database = await createTestDatabase();
  opened = await openPostgresDb({
    url: database.url,
    poolSize: 4,
    applicationName: 'store-test',
    log: () => undefined,
  });
  other = new pg.Pool({ connectionString: database.url, max: 4 });
  await opened.db
    .insertInto('tenants')
    .values({
      slug: 'clinica-pg',
      nome: 'Clinica PG',
      is_sandbox: 0,
      status: 'active',
      created_at: new Date().toISOString(),
    })
    .execute();
});

afterAll(async () => {
  await other?.end();
  await opened?.close();
  await database?.drop();
});

const until = async (what: () => Promise<boolean> | boolean, ms = 3000): Promise<boolean> => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await what()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return what();
};

describe("key resolution: cached, and emptied by the database's notifications", () => {
  let keys: KeysService;
  let id: number;
  let apiKey: string;
  beforeAll(async () => {
    keys = new KeysService(opened.db, new SecretBox(masterKey), postgresKeySource(opened));
    await until(() => opened.listening('gateway_keys'));
    const issued = await keys.create({ tenantSlug: 'clinica-pg', scopes: ['pacientes:read'] });
    id = issued.chave_id;
    apiKey = issued.api_key;
  });

  it('a found key is served from memory; a change made by another connection reaches it through NOTIFY', async () => {
    const first = await keys.resolve(apiKey);
    expect(first?.key.status).toBe('active');
    // Cached once the notifications of its own creation have arrived: then an answer without a promise.
    const servedFromMemory = async () => {
      const answer = keys.resolve(apiKey);
      if (!(answer instanceof Promise)) return true;
      await answer;
      return false;
    };
    expect(await until(servedFromMemory)).toBe(true);
    await other.query(`UPDATE api_keys SET status = 'revoked' WHERE id = $1`, [id]);
    expect(await until(async () => (await keys.resolve(apiKey))?.key.status === 'revoked')).toBe(true);
    await other.query(`UPDATE api_keys SET status = 'active' WHERE id = $1`, [id]);
    expect(await until(async () => (await keys.resolve(apiKey))?.key.status === 'active')).toBe(true);
  });

  it('an unknown identifier costs one query, until a key with it is created anywhere', async () => {
    const unknown = `ce_live_${randomBytes(16).toString('hex')}`;
    expect(await keys.resolve(unknown)).toBeUndefined();
    // Remembered: answered without a promise.
    expect(keys.resolve(unknown)).toBeUndefined();
    await other.query(
      `INSERT INTO api_keys (tenant_id, api_key, scopes, secret_sealed) SELECT id, $1, '["pacientes:read"]', NULL FROM tenants WHERE slug = 'clinica-pg'`,
      [unknown],
    );
    expect(await until(async () => (await keys.resolve(unknown)) !== undefined)).toBe(true);
  });

  it("a clinic's change empties every key of the cache", async () => {
    await keys.resolve(apiKey);
    await other.query(`UPDATE tenants SET status = 'inactive' WHERE slug = 'clinica-pg'`);
    expect(await until(async () => (await keys.resolve(apiKey))?.tenant?.status === 'inactive')).toBe(true);
    await other.query(`UPDATE tenants SET status = 'active' WHERE slug = 'clinica-pg'`);
    expect(await until(async () => (await keys.resolve(apiKey))?.tenant?.status === 'active')).toBe(true);
  });

  it('while the listening connection is lost nothing is cached, so no change is missed; it comes back by itself', async () => {
    await keys.resolve(apiKey);
    await other.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'store-test-listen'`,
    );
    expect(await until(() => !opened.listening('gateway_keys'), 2000)).toBe(true);
    // A change nobody is told of while the listener is down: the next read sees it all the same.
    await other.query(`UPDATE api_keys SET scopes = '["pacientes:write"]' WHERE id = $1`, [id]);
    expect((await keys.resolve(apiKey))?.scopes).toEqual(['pacientes:write']);
    expect(await until(() => opened.listening('gateway_keys'), 5000)).toBe(true);
    await other.query(`UPDATE api_keys SET scopes = '["pacientes:read"]' WHERE id = $1`, [id]);
    expect(await until(async () => (await keys.resolve(apiKey))?.scopes[0] === 'pacientes:read')).toBe(true);
  });
});

describe('a connection lost while in use', () => {
  it('does not end the process: the transaction that held it fails, the pool serves the next statement on a new one', async () => {
    const lostInside = opened.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
      await other.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      // The connection is checked out and idle between two statements when its server process goes away.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await sql`SELECT 1`.execute(trx);
    });
    await expect(lostInside).rejects.toThrow();
    const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(opened.db);
    expect(rows[0]!.one).toBe(1);
  });
});

describe("the cluster's rate limit (gateway_rate_take)", () => {
  it("one quota per key for every connection: a burst of a minute's quota, then 429 with the wait", async () => {
    const here = new PostgresKeyRateLimiter(opened.pool);
    const there = new PostgresKeyRateLimiter(other);
    const verdicts = [
      await here.take(9001, 3),
      await there.take(9001, 3),
      await here.take(9001, 3),
      await there.take(9001, 3),
    ];
    expect(verdicts.map((v) => v.ok)).toEqual([true, true, true, false]);
    expect(verdicts[0]).toEqual({ ok: true, remaining: 2 });
    const refused = verdicts[3];
    // One request every 20 s at 3 a minute: the next one is due within 20 s.
    expect(!refused.ok && refused.retryAfterSeconds >= 1 && refused.retryAfterSeconds <= 20).toBe(true);
    // Another key has its own bucket.
    expect((await there.take(9002, 3)).ok).toBe(true);
  });

  it('takes asked in one turn go in one statement and still count one by one, duplicates and other keys mixed', async () => {
    const limiter = new PostgresKeyRateLimiter(opened.pool);
    const verdicts = await Promise.all([9010, 9011, 9010, 9010, 9011, 9010].map((key) => limiter.take(key, 3)));
    expect(verdicts.map((v) => v.ok)).toEqual([true, true, true, true, true, false]);
    expect(verdicts.slice(0, 4).map((v) => (v.ok ? v.remaining : -1))).toEqual([2, 2, 1, 0]);
  });

  it('a bucket left far ahead by a server clock stepped back starts afresh instead of refusing for the length of the step', async () => {
    const limiter = new PostgresKeyRateLimiter(opened.pool);
    expect((await limiter.take(9003, 60)).ok).toBe(true);
    await other.query('UPDATE rate_limit_buckets SET tat = tat + 3600000 WHERE chave_id = 9003');
    expect(await limiter.take(9003, 60)).toEqual({ ok: true, remaining: 59 });
  });
});

describe("the cluster's rate limit in leases (issue 32 § 4, gateway_rate_lease_many)", () => {
  /** How far ahead of the server's clock a key's bucket is: 60 s for a bucket spent to its burst, 0 or less when full. */
  const aheadMs = async (key: number) =>
    Number(
      (
        await other.query<{ ahead: number }>(
          'SELECT tat - extract(epoch FROM clock_timestamp()) * 1000 AS ahead FROM rate_limit_buckets WHERE chave_id = $1',
          [key],
        )
      ).rows[0]?.ahead ?? Number.NEGATIVE_INFINITY,
    );

  it('blocks of one per hundred of the quota, 1 to 64: quotas under 200 a minute stay exact, one by one', () => {
    expect([3, 120, 199, 200, 1200, 6400, 100_000_000].map(leaseBlock)).toEqual([1, 1, 1, 2, 12, 64, 64]);
  });

  it('at 1,000 a minute (blocks of 10): one statement takes ten tokens, the next nine takes are answered in memory', async () => {
    const limiter = new PostgresKeyRateLimiter(opened.pool);
    const first = limiter.take(9100, 1000);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toEqual({ ok: true, remaining: 999 });
    // Ten tokens of 60 ms each went out of the bucket at once.
    expect(await aheadMs(9100)).toBeGreaterThan(500);
    expect(await aheadMs(9100)).toBeLessThanOrEqual(600);
    const inMemory = Array.from({ length: 9 }, () => limiter.take(9100, 1000));
    for (const verdict of inMemory) expect(verdict).not.toBeInstanceOf(Promise);
    expect(inMemory.map((v) => (v as { remaining: number }).remaining)).toEqual([
      998, 997, 996, 995, 994, 993, 992, 991, 990,
    ]);
    // Spent: the eleventh asks the database again.
    const eleventh = limiter.take(9100, 1000);
    expect(eleventh).toBeInstanceOf(Promise);
    expect(await eleventh).toMatchObject({ ok: true });
    await limiter.close();
  });

  it('two instances in leases never serve more than the bucket grants, and spend all of it before refusing', async () => {
    const limit = 1000;
    const here = new PostgresKeyRateLimiter(opened.pool);
    const there = new PostgresKeyRateLimiter(other);
    const started = Date.now();
    let served = 0;
    const refusedBy = new Set<string>();
    for (let i = 0; i < 3 * limit && refusedBy.size < 2; i++) {
      const [name, limiter] = i % 2 === 0 ? (['here', here] as const) : (['there', there] as const);
      const verdict = await limiter.take(9101, limit);
      if (verdict.ok) {
        served += 1;
        refusedBy.delete(name);
      } else {
        expect(verdict.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        refusedBy.add(name);
      }
    }
    const refilled = Math.ceil(((Date.now() - started) / 60_000) * limit);
    expect(refusedBy.size).toBe(2);
    expect(served).toBeGreaterThanOrEqual(limit);
    expect(served).toBeLessThanOrEqual(limit + refilled);
    await here.close();
    await there.close();
  });

  it('what a lease did not spend goes back to the bucket once its lifetime is over, and at close', async () => {
    const expiring = new PostgresKeyRateLimiter(opened.pool, { leaseLifetimeMs: 100 });
    expect(await expiring.take(9102, 1000)).toEqual({ ok: true, remaining: 999 });
    expect(await aheadMs(9102)).toBeGreaterThan(500);
    // Nine unspent tokens of 60 ms back: at most one token's worth ahead of the clock.
    await vi.waitFor(async () => expect(await aheadMs(9102)).toBeLessThanOrEqual(60), { timeout: 3000, interval: 50 });

    const closing = new PostgresKeyRateLimiter(opened.pool);
    expect(await closing.take(9103, 1000)).toEqual({ ok: true, remaining: 999 });
    expect(await aheadMs(9103)).toBeGreaterThan(500);
    await closing.close();
    expect(await aheadMs(9103)).toBeLessThanOrEqual(60);
  });
});

describe('idempotency across instances', () => {
  const op = (idemKey: string, path = '/v1/pacientes'): OperationKey => ({
    chaveId: 1,
    idemKey,
    method: 'POST',
    path,
    operation: operationIdentity('POST', '/v1/pacientes/:id/prontuarios', { id: 1 }),
  });

  it('of twenty reservations of one key on two instances, one executes; the others are in flight, then replays', async () => {
    const a = new PostgresIdempotencyStore(opened.pool, { leaseMs: 45_000, masterKey, instanceId: 'a' });
    const b = new PostgresIdempotencyStore(other, { leaseMs: 45_000, masterKey, instanceId: 'b' });
    const key = `corrida-${randomBytes(4).toString('hex')}`;
    // Two spellings of the path: one operation.
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).reserve(
          op(key, i % 2 ? '/v1/pacientes/1/prontuarios' : '/v1/pacientes/%31/prontuarios'),
          'hash',
        ),
      ),
    );
    const executed = outcomes.filter((o) => o.kind === 'execute');
    expect(executed).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'in_flight')).toHaveLength(19);
    const entry = (executed[0] as { entry: OperationKey }).entry;
    a.complete(entry, { status: 201, headers: { location: '/v1/x/1' }, body: '{"id":1}' });
    expect(await until(async () => (await b.reserve(op(key), 'hash')).kind === 'replay')).toBe(true);
    const replay = await b.reserve(op(key, '/v1/pacientes/%31/prontuarios'), 'hash');
    expect(replay.kind === 'replay' && replay.record.response_body).toBe('{"id":1}');
    // Another body is a conflict; another operation too.
    expect((await a.reserve(op(key), 'other-hash')).kind).toBe('conflict');
    expect(
      (await a.reserve({ ...op(key), operation: operationIdentity('POST', '/v1/pacientes', {}) }, 'hash')).kind,
    ).toBe('conflict');
  });

  it('the reservations of one turn go in one statement; a key asked twice in it executes once, the other ask finds it in flight', async () => {
    const counted = new pg.Pool({ connectionString: database.url, max: 4 });
    const inserts: string[] = [];
    const query = counted.query.bind(counted) as (...args: unknown[]) => Promise<unknown>;
    (counted as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args: unknown[]) => {
      // A statement's text, given as a string or in a query config (a named, prepared statement).
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      if (text?.includes('INSERT INTO idempotency_keys')) inserts.push(text);
      return query(...args);
    };
    try {
      const store = new PostgresIdempotencyStore(counted as pg.Pool, { leaseMs: 45_000, masterKey, instanceId: 'a' });
      const run = randomBytes(4).toString('hex');
      const keys = [...Array.from({ length: 12 }, (_, i) => `turno-${run}-${i}`), `turno-${run}-0`, `turno-${run}-0`];
      const outcomes = await Promise.all(keys.map((key) => store.reserve(op(key), 'hash')));
      expect(outcomes.map((o) => o.kind)).toEqual([...Array(12).fill('execute'), 'in_flight', 'in_flight']);
      // Twelve keys in the first statement; a key is in a statement once, so the repeated key's asks go one a
      // statement in the next turns, where each meets its row.
      expect(inserts.length).toBe(3);
      // Twelve rows, then one, then one: the same text (one array a column), so one prepared statement.
      expect(new Set(inserts).size).toBe(1);
      const { rows } = await other.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM idempotency_keys WHERE idem_key LIKE $1',
        [`turno-${run}-%`],
      );
      expect(rows[0].n).toBe(12);
    } finally {
      await counted.end();
    }
  });

  it('an instance frees at start only the reservations it left in flight', async () => {
    const a = new PostgresIdempotencyStore(opened.pool, { leaseMs: 45_000, masterKey, instanceId: 'gateway-a' });
    const b = new PostgresIdempotencyStore(other, { leaseMs: 45_000, masterKey, instanceId: 'gateway-b' });
    const mine = `minha-${randomBytes(4).toString('hex')}`;
    const theirs = `deles-${randomBytes(4).toString('hex')}`;
    expect((await a.reserve(op(mine), 'h')).kind).toBe('execute');
    expect((await b.reserve(op(theirs), 'h')).kind).toBe('execute');
    // gateway-a restarts (same GATEWAY_INSTANCE_ID): its own entry is free at once, gateway-b's waits for its lease.
    const restarted = new PostgresIdempotencyStore(opened.pool, {
      leaseMs: 45_000,
      masterKey,
      instanceId: 'gateway-a',
    });
    expect(await restarted.freeOwnReservations()).toBe(1);
    expect((await restarted.reserve(op(mine), 'h')).kind).toBe('execute');
    expect((await restarted.reserve(op(theirs), 'h')).kind).toBe('in_flight');
  });
});

describe("the journal's batches on PostgreSQL (issue 32 § 4)", () => {
  const entry = (i: number, run: string, overrides: Partial<AuditRecord> = {}): AuditRecord => ({
    request_id: `lote-${run}-${i}`,
    ts: new Date(Date.UTC(2026, 11, 3, 14, 0, 0, i)).toISOString(),
    source: 'api',
    tenant_id: 1,
    tenant_slug: 'clinica-pg',
    chave_id: 7,
    operator_id: null,
    method: 'GET',
    path: '/v1/ping',
    status: 200,
    error_code: null,
    duracao_ms: i,
    client_ip: '127.0.0.1',
    body: null,
    detail: null,
    error_message: null,
    response_body: '{"data":{"pong":true}}',
    request_headers: null,
    journal_class: 'verified',
    ...overrides,
  });

  it('batches of any size share one prepared statement a connection, and every value arrives as it was given', async () => {
    // One connection, so what it prepared is what pg_prepared_statements shows.
    const single = new pg.Pool({ connectionString: database.url, max: 1 });
    const committer = postgresBatchCommitter(single);
    const run = randomBytes(4).toString('hex');
    try {
      const awkward = entry(0, run, {
        path: '/v1/pacientes?nome=D\'Ávila "Jr", {x}\\y',
        body: 'NULL',
        detail: '{"a":[1,2],"b":"c,d"}',
        error_message: 'linha 1\nlinha 2\ttab',
        request_headers: '',
        status: 404,
        error_code: 'RES_NOT_FOUND',
      });
      const sizes = [1, 5, 40];
      let i = 1;
      for (const size of sizes)
        await committer.commit(
          Array.from({ length: size }, () => entry(i++, run)),
          [],
        );
      await committer.commit([awkward, entry(i++, run)], []);
      const { rows: prepared } = await single.query<{ name: string }>(
        "SELECT name FROM pg_prepared_statements WHERE name LIKE 'gw\\_%' AND statement LIKE '%INSERT INTO audit_log%' ORDER BY name",
      );
      // Three sizes of plain batches, one statement; the batch with an error code adds its rollup's codes clause.
      expect(prepared.map((p) => p.name)).toHaveLength(2);
      const { rows } = await single.query(
        'SELECT request_id, path, body, detail, error_message, request_headers, status, error_code, duracao_ms, chave_id, bytes FROM audit_log WHERE request_id LIKE $1 ORDER BY id',
        [`lote-${run}-%`],
      );
      expect(rows).toHaveLength(1 + 5 + 40 + 2);
      expect(rows.map((r) => r.duracao_ms)).toEqual([...Array.from({ length: 46 }, (_, n) => n + 1), 0, 47]);
      const stored = rows.find((r) => r.request_id === awkward.request_id);
      expect(stored).toMatchObject({
        path: awkward.path,
        body: 'NULL',
        detail: awkward.detail,
        error_message: awkward.error_message,
        request_headers: '',
        status: 404,
        error_code: 'RES_NOT_FOUND',
        chave_id: 7,
      });
      expect(rows.find((r) => r.request_id === `lote-${run}-1`)).toMatchObject({ body: null, error_code: null });
      expect(rows.every((r) => r.bytes > 0)).toBe(true);
    } finally {
      await committer.close();
      await single.end();
    }
  });
});
