import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { makeCpf } from '../../helpers/fixtures.ts';
import { canonicalBodyHash } from '../../../server/idempotency/canonical-hash.ts';
import { IdempotencyStore, operationIdentity } from '../../../server/idempotency/idempotency.store.ts';
import { backendWriteToken } from '../../../server/idempotency/backend-write-token.ts';
import { loadMasterKey } from '../../../server/keys/secret-box.ts';

// Issue 12 § PII sealed at rest: no patient datum sent in a write body rests in plaintext under DATA_DIR,
// except in backend-sim's clinic databases (DATA_DIR/backend), whose job is to hold it. Every file mode is
// owner-only: DATA_DIR and backend/ 0700, databases (and their -wal/-shm) and secrets 0600.

const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');
const tag = () => randomBytes(6).toString('hex').toUpperCase();

/** Unique values nobody else writes: found anywhere, they came from this test's requests. */
function sentinels() {
  const t = tag();
  return {
    // backend-sim stores and answers names in upper case; sent that way, one spelling covers all copies.
    nome: `SENTINELA NOME ${t}`,
    cpf: makeCpf(randomInt(1, 700_000_000)),
    email: `sentinela.${t.toLowerCase()}@pii.example`,
    celular: `119${digits(8)}`,
    telefone: `113${digits(7)}`,
    rg: `RG${digits(9)}`,
    data_nascimento: `19${randomInt(30, 99)}-0${randomInt(1, 10)}-1${randomInt(0, 10)}`,
  };
}
type Sentinels = ReturnType<typeof sentinels>;

/** Every file under `dir`, recursively, except DATA_DIR/backend (the clinic databases). */
function filesUnder(dir: string, skip = path.join(dir, 'backend')): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (full === skip) continue;
    if (entry.isDirectory()) out.push(...filesUnder(full, skip));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** `{ sentinel value: [files holding its bytes] }` for the values found; empty when none is. */
function plaintextHits(dataDir: string, values: string[]): Record<string, string[]> {
  const files = filesUnder(dataDir);
  expect(files.map((f) => path.basename(f))).toEqual(expect.arrayContaining(['gateway.db', 'master.key']));
  const hits: Record<string, string[]> = {};
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const value of values) {
      if (bytes.includes(Buffer.from(value, 'utf8'))) {
        hits[value] ??= [];
        hits[value].push(path.relative(dataDir, file));
      }
    }
  }
  return hits;
}

let stack: TestStack;
let dataDir: string;
let savedUmask: number;

beforeAll(async () => {
  // A permissive umask and a world-readable DATA_DIR (as earlier releases left it): the modes asserted
  // below must come from the code (chmod), not from the environment.
  savedUmask = process.umask(0o000);
  dataDir = mkdtempSync(path.join(tmpdir(), 'gw-pii-'));
  chmodSync(dataDir, 0o755);
  stack = await startTestStack({}, { dataDir });
});

afterAll(async () => {
  await stack?.stop();
  process.umask(savedUmask);
  rmSync(dataDir, { recursive: true, force: true });
});

const post = (body: unknown, idempotencyKey: string = randomUUID()) =>
  stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey });

/** Audit entries committed and the WAL folded into gateway.db, so every byte is where it rests. */
function settle(target: TestStack = stack): void {
  target.app.auditWriter.flush();
  target.gatewayDb.sqlite.pragma('wal_checkpoint(TRUNCATE)');
}

describe('patient data sent in writes is not in plaintext outside DATA_DIR/backend', () => {
  let created: Sentinels;
  let patched: Sentinels;
  let key: string;
  let body: Record<string, unknown>;
  let patientId: number;

  beforeAll(async () => {
    created = sentinels();
    patched = sentinels();
    key = randomUUID();
    body = { ...created };
    const first = await post(body, key);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    patientId = first.body.data.id;
    // The response carries every sentinel: it is exactly what the idempotency store keeps for 24 h.
    for (const value of Object.values(created)) expect(first.text).toContain(value);

    const { nome: _nome, data_nascimento: _nascimento, ...patch } = patched;
    const update = await stack.call({
      method: 'PATCH',
      path: `/v1/pacientes/${patientId}`,
      body: patch,
      idempotencyKey: randomUUID(),
    });
    expect(update.status, JSON.stringify(update.body)).toBe(200);
    expect(update.text).toContain(patched.email);

    // A replay still answers the original response, opened from its sealed form.
    const replay = await post(body, key);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotency-replay']).toBe('true');
    expect(replay.body.data).toEqual(first.body.data);
  });

  test('CPF, e-mail, phones, RG and birth date: in no file (gateway.db, its WAL, secrets, storage)', () => {
    const { nome: _a, ...pii } = created;
    const { nome: _b, data_nascimento: _c, ...patchedPii } = patched;
    const values = [...Object.values(pii), ...Object.values(patchedPii)];
    // Before the checkpoint the pages sit in gateway.db-wal; after it, in gateway.db.
    stack.app.auditWriter.flush();
    expect(plaintextHits(dataDir, values)).toEqual({});
    settle();
    expect(plaintextHits(dataDir, values)).toEqual({});
    // The test can see the data where it is meant to be: the clinic's database holds it.
    const clinic = readFileSync(path.join(dataDir, 'backend', `${stack.tenantSlug}.db`));
    const clinicWal = readFileSync(path.join(dataDir, 'backend', `${stack.tenantSlug}.db-wal`));
    expect(clinic.includes(created.cpf) || clinicWal.includes(created.cpf)).toBe(true);
  });

  test('the name: only in the audit log (spec § Data protection keeps names unmasked there), nowhere else', () => {
    settle();
    const sqlite = stack.gatewayDb.sqlite;
    const audited = sqlite
      .prepare("SELECT COUNT(*) AS n FROM audit_log WHERE body LIKE '%' || ? || '%'")
      .get(created.nome) as { n: number };
    expect(audited.n).toBeGreaterThanOrEqual(1);
    // Drop those audit rows (secure_delete zeroes them) and fold the WAL: if the name were kept anywhere
    // else (the idempotency store's cached response), its bytes would still be found.
    sqlite
      .prepare("DELETE FROM audit_log WHERE body LIKE '%' || ? || '%' OR response_body LIKE '%' || ? || '%'")
      .run(created.nome, created.nome);
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
    expect(plaintextHits(dataDir, [created.nome])).toEqual({});
  });

  test('the stored row: sealed response, no plaintext columns, a keyed fingerprint instead of the body hash', () => {
    const row = stack.gatewayDb.sqlite
      .prepare('SELECT * FROM idempotency_keys WHERE chave_id = ? AND idem_key = ?')
      .get(stack.creds.chaveId, key) as Record<string, unknown>;
    expect(row).toMatchObject({
      state: 'completed',
      status: 201,
      response_headers: null,
      response_body: null,
      seal_version: 1,
    });
    expect(Buffer.isBuffer(row.response_sealed)).toBe(true);
    // A bare SHA-256 of a small body could be reversed by trying every CPF; the stored value is an HMAC.
    expect(row.body_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.body_hash).not.toBe(canonicalBodyHash(body, Buffer.alloc(0)));
  });

  test('a sealed response moved to another row does not open (associated data binds it)', async () => {
    const otherBody = { nome: `OUTRO ${tag()}`, data_nascimento: '1990-01-01' };
    const otherKey = randomUUID();
    expect((await post(otherBody, otherKey)).status).toBe(201);
    const sqlite = stack.gatewayDb.sqlite;
    const sealedOf = (idemKey: string) =>
      (
        sqlite
          .prepare('SELECT response_sealed FROM idempotency_keys WHERE chave_id = ? AND idem_key = ?')
          .get(stack.creds.chaveId, idemKey) as {
          response_sealed: Buffer;
        }
      ).response_sealed;
    const setSealed = (idemKey: string, value: Buffer) =>
      sqlite
        .prepare('UPDATE idempotency_keys SET response_sealed = ? WHERE chave_id = ? AND idem_key = ?')
        .run(value, stack.creds.chaveId, idemKey);
    const original = sealedOf(otherKey);
    const store = new IdempotencyStore(sqlite, 45_000, loadMasterKey(dataDir));
    const op = {
      chaveId: stack.creds.chaveId,
      idemKey: otherKey,
      method: 'POST',
      path: '/v1/pacientes',
      operation: operationIdentity('POST', '/v1/pacientes', {}),
    };
    const reserve = () => store.reserve(op, canonicalBodyHash(otherBody, Buffer.alloc(0)));
    expect(reserve().kind).toBe('replay');
    setSealed(otherKey, sealedOf(key));
    try {
      expect(reserve).toThrow();
    } finally {
      setSealed(otherKey, original);
    }
    expect(reserve().kind).toBe('replay');
  });
});

test('rows of earlier releases (plaintext) are sealed when the gateway starts, and still replay', async () => {
  const own = await startTestStack();
  const pii = sentinels();
  const body = { ...pii };
  const key = randomUUID();
  let restarted: TestStack | null = null;
  try {
    const first = await own.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: key });
    expect(first.status).toBe(201);
    // What the row held before sealing: the response in plaintext columns, the bare SHA-256, and no
    // operation (rows before migration 018 match their own verb and raw path).
    const store = new IdempotencyStore(own.gatewayDb.sqlite, 45_000, loadMasterKey(own.dataDir));
    const op = {
      chaveId: own.creds.chaveId,
      idemKey: key,
      method: 'POST',
      path: '/v1/pacientes',
      operation: operationIdentity('POST', '/v1/pacientes', {}),
    };
    const bodyHash = canonicalBodyHash(body, Buffer.alloc(0));
    const replay = store.reserve(op, bodyHash);
    if (replay.kind !== 'replay') throw new Error(`expected a replay, got ${replay.kind}`);
    await own.close();
    const db = new SQLite(path.join(own.dataDir, 'gateway.db'));
    db.prepare(
      `UPDATE idempotency_keys SET seal_version = 0, body_hash = ?, response_headers = ?, response_body = ?, response_sealed = NULL, operation = NULL
       WHERE chave_id = ? AND idem_key = ?`,
    ).run(bodyHash, replay.record.response_headers, replay.record.response_body, own.creds.chaveId, key);
    db.close();
    // Such a row's write went to backend-sim under that release's token (verb and raw path): its marker says so,
    // or the start-time check would rightly find the row orphaned.
    const backendDb = new SQLite(path.join(own.dataDir, 'backend', `${own.tenantSlug}.db`));
    const moved = backendDb
      .prepare('UPDATE idempotency_markers SET token = ? WHERE token = ?')
      .run(backendWriteToken({ ...op, operation: null }, 0), backendWriteToken(op, 0));
    backendDb.close();
    expect(moved.changes).toBe(1);
    expect(readFileSync(path.join(own.dataDir, 'gateway.db')).includes(pii.cpf)).toBe(true);

    restarted = await startTestStack({}, { dataDir: own.dataDir });
    const again = await restarted.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: key }, own.creds);
    expect(again.status).toBe(201);
    expect(again.headers['idempotency-replay']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    // Replayed by the gateway from the converted row, which the start found consistent.
    expect(await restarted.integrity.consistency).toMatchObject({ checked: 1, orphaned: [] });
    expect(again.body.data).toEqual(first.body.data);
    const legacy = restarted.gatewayDb.sqlite
      .prepare('SELECT COUNT(*) AS n FROM idempotency_keys WHERE seal_version = 0 OR response_body IS NOT NULL')
      .get();
    expect(legacy).toEqual({ n: 0 });
    settle(restarted);
    const { nome: _nome, ...values } = pii;
    expect(plaintextHits(own.dataDir, Object.values(values))).toEqual({});
  } finally {
    if (restarted) await restarted.close();
    else await own.close().catch(() => undefined);
    rmSync(own.dataDir, { recursive: true, force: true });
  }
});

describe('file modes', () => {
  test('DATA_DIR and backend/ 0700; every database, its -wal/-shm, and the secrets 0600', () => {
    const mode = (p: string) => statSync(p).mode & 0o777;
    expect(mode(dataDir).toString(8)).toBe('700');
    expect(mode(path.join(dataDir, 'backend')).toString(8)).toBe('700');
    const all = [...filesUnder(dataDir, '/nowhere')];
    const databases = all.filter((f) => /\.db(-wal|-shm)?$/.test(f));
    // gateway.db and the test tenant's database, each with its WAL and shared memory.
    expect(databases.map((f) => path.relative(dataDir, f)).sort()).toEqual(
      expect.arrayContaining([
        'gateway.db',
        'gateway.db-shm',
        'gateway.db-wal',
        `backend/${stack.tenantSlug}.db`,
        `backend/${stack.tenantSlug}.db-wal`,
      ]),
    );
    const secrets = all.filter((f) => ['master.key', 'backend.token'].includes(path.basename(f)));
    expect(secrets).toHaveLength(2);
    for (const file of [...databases, ...secrets])
      expect(`${path.relative(dataDir, file)} ${mode(file).toString(8)}`).toBe(`${path.relative(dataDir, file)} 600`);
  });
});
