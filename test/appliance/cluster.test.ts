import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ephemeralConfig } from '../../server/config.ts';
import { ALL_SCOPES } from '../../contracts/scopes.ts';
import { startCluster, type RunningCluster } from '../../appliance/cluster.ts';
import { isFirstStart } from '../../appliance/bootstrap.ts';
import { openGatewayServices, type GatewayServices } from '../../appliance/stack.ts';
import { runtimeInfoSchema } from '../../appliance/runtime-file.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { signedRequest, type Credentials } from '../helpers/signed-client.ts';
import { ConsoleClient } from '../server/admin/console-client.ts';

// Issue 24 § 2 and § 6: three gateway processes on one PostgreSQL (the suite's, a database of its own) behave as
// one gateway. The cluster is started as `npm run cluster` starts it (appliance/cluster.ts), each gateway its own
// process running appliance/cluster-main.ts; this process opens the same database as the CLI would.
const RATE_LIMIT = 100;
let dataDir: string;
let database: TestDatabase;
let cluster: RunningCluster;
let services: GatewayServices;
let creds: Credentials & { chaveId: number };
let operator: { username: string; password: string };
const urls = () => cluster.gateways.map((g) => g.url);

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'gw-cluster-'));
  database = await createTestDatabase();
  // The gateways' own environment: the cluster passes its settings down, as npm run cluster's environment would.
  const gatewayEnv = {
    OPERATOR_PASSWORD: 'cluster-operator-password',
    RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    DRAIN_TIMEOUT_MS: '2000',
    DATABASE_POOL_SIZE: '4',
    LOG_LEVEL: 'warn',
    SEED_ON_FIRST_START: 'false',
  };
  const config = ephemeralConfig(dataDir, { DATABASE_URL: database.url, ...gatewayEnv });
  cluster = await startCluster({
    config,
    instances: 3,
    gatewayCommand: { command: process.execPath, args: ['--import', 'tsx', path.resolve('appliance/cluster-main.ts')] },
    isFirstStart,
    gatewayEnv,
    startTimeoutMs: 90_000,
  });
  services = await openGatewayServices(
    { ...config, backend: { ...config.backend, url: cluster.backendUrl } },
    cluster.backendUrl,
  );
  const issued = await services.keys.create({ tenantSlug: 'demo', scopes: [...ALL_SCOPES], label: 'cluster test' });
  creds = { apiKey: issued.api_key, apiSecret: issued.api_secret, chaveId: issued.chave_id };
  operator = { username: 'admin', password: 'cluster-operator-password' };
}, 180_000);

afterAll(async () => {
  await services?.close();
  await cluster?.stop();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

const call = (url: string, req: Parameters<typeof signedRequest>[2], c: Credentials = creds) =>
  signedRequest(url, c, req);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fresh key per test: the rate limit counts per key across the cluster. */
async function freshKey(): Promise<Credentials & { chaveId: number }> {
  const issued = await services.keys.create({ tenantSlug: 'demo', scopes: [...ALL_SCOPES], label: 'cluster test' });
  return { apiKey: issued.api_key, apiSecret: issued.api_secret, chaveId: issued.chave_id };
}

describe('npm run cluster -- --instances 3', () => {
  it('answers signed calls on every port; runtime.json lists the gateways and the database without its password', async () => {
    expect(cluster.gateways).toHaveLength(3);
    for (const url of urls()) expect((await call(url, { path: '/v1/ping' })).status).toBe(200);
    const runtime = runtimeInfoSchema.parse(JSON.parse(readFileSync(path.join(dataDir, 'runtime.json'), 'utf8')));
    expect(runtime.gateways!.map((g) => g.port)).toEqual(cluster.gateways.map((g) => g.port));
    expect(runtime.gateways!.map((g) => g.pid)).toEqual(cluster.gateways.map((g) => g.pid));
    expect(runtime.database).toMatchObject({ kind: 'postgres', managed: false });
    const password = new URL(database.url).password;
    expect(readFileSync(path.join(dataDir, 'runtime.json'), 'utf8')).not.toContain(password);
  });
});

describe('correct across instances', () => {
  it('a 30-way idempotency race spread over the instances executes once; the others get 409 CONCURRENT_REQUEST or the replay', async () => {
    const key = await freshKey();
    const body = { nome: 'Paciente Corrida Cluster', cpf: null, data_nascimento: '1980-01-02' };
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(urls()[i % 3], { method: 'POST', path: '/v1/pacientes', body, idempotencyKey: 'corrida-cluster-1' }, key),
      ),
    );
    const executed = answers.filter((a) => a.status === 201 && a.headers['idempotency-replay'] === 'false');
    const replays = answers.filter((a) => a.status === 201 && a.headers['idempotency-replay'] === 'true');
    const concurrent = answers.filter((a) => a.status === 409);
    expect(executed, answers.map((a) => `${a.status} ${a.text}`).join('\n')).toHaveLength(1);
    expect(replays.length + concurrent.length).toBe(29);
    for (const c of concurrent) expect(c.body.error.code).toBe('CONCURRENT_REQUEST');
    for (const r of replays) expect(r.body.data.id).toBe(executed[0].body.data.id);
    // Once done, every instance replays the same answer.
    for (const url of urls()) {
      const again = await call(
        url,
        { method: 'POST', path: '/v1/pacientes', body, idempotencyKey: 'corrida-cluster-1' },
        key,
      );
      expect(again.status).toBe(201);
      expect(again.headers['idempotency-replay']).toBe('true');
      expect(again.body.data.id).toBe(executed[0].body.data.id);
    }
    const found = await call(urls()[0], { path: `/v1/pacientes?nome=${encodeURIComponent('Corrida Cluster')}` }, key);
    expect(
      found.body.data.filter((p: { nome: string }) => p.nome.toUpperCase() === body.nome.toUpperCase()),
    ).toHaveLength(1);
  });

  it("a rotation made through the CLI's connection and a revocation through one instance's console are seen by every instance within 1 s", async () => {
    const key = await freshKey();
    // Every instance has the key in its cache.
    for (const url of urls()) expect((await call(url, { path: '/v1/ping' }, key)).status).toBe(200);
    const rotated = await services.keys.rotate(key.chaveId);
    const rotatedAt = Date.now();
    await sleep(1000);
    for (const url of urls()) {
      const old = await call(url, { path: '/v1/ping' }, key);
      expect(old.status, `${url} still took the old secret ${Date.now() - rotatedAt} ms after the rotation`).toBe(401);
      expect(old.body.error.code).toBe('AUTH_INVALID_SIGNATURE');
      expect(
        (await call(url, { path: '/v1/ping' }, { apiKey: key.apiKey, apiSecret: rotated.api_secret })).status,
      ).toBe(200);
    }
    const console1 = new ConsoleClient(urls()[0]);
    expect((await console1.login(operator.username, operator.password)).status).toBe(200);
    expect((await console1.call('POST', `/admin/api/keys/${key.chaveId}/revoke`)).status).toBe(200);
    await sleep(1000);
    for (const url of urls()) {
      const revoked = await call(url, { path: '/v1/ping' }, { apiKey: key.apiKey, apiSecret: rotated.api_secret });
      expect(revoked.status).toBe(401);
      expect(revoked.body.error.code).toBe('AUTH_KEY_REVOKED');
    }
  });

  it('the rate limit is per key across the cluster, not per instance', async () => {
    const key = await freshKey();
    const started = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT + 20; i++) {
      const answer = await call(urls()[i % 3], { path: '/v1/ping' }, key);
      statuses.push(answer.status);
      if (answer.status === 429) expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    const refilled = Math.ceil(((Date.now() - started) / 60_000) * RATE_LIMIT);
    const allowed = statuses.filter((s) => s === 200).length;
    // Per instance it would be 3 × 40 = 120 allowed (all 60); across the cluster, one minute's quota and what refilled meanwhile.
    expect(allowed).toBeGreaterThanOrEqual(RATE_LIMIT);
    expect(allowed).toBeLessThanOrEqual(RATE_LIMIT + refilled);
    expect(statuses.filter((s) => s === 429).length).toBe(statuses.length - allowed);
  });

  it('the journal is one and complete, in the order the requests arrived, whichever instance answered', async () => {
    const key = await freshKey();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++)
      ids.push((await call(urls()[i % 3], { path: `/v1/ping?n=${i}` }, key)).body.meta.request_id);
    const { rows } = await services.gatewayDb.db
      .selectFrom('audit_log')
      .select(['request_id', 'id'])
      .where('chave_id', '=', key.chaveId)
      .orderBy('id')
      .execute()
      .then((r) => ({ rows: r }));
    expect(rows.map((r) => r.request_id)).toEqual(ids);
  });

  it('console sessions, operator tokens and storage faults work on any instance', async () => {
    const console1 = new ConsoleClient(urls()[0]);
    expect((await console1.login(operator.username, operator.password)).status).toBe(200);
    // The session made on instance 1, used on instances 2 and 3.
    for (const url of urls().slice(1)) {
      const other = new ConsoleClient(url);
      other.cookie = console1.cookie;
      other.csrf = console1.csrf;
      expect((await other.call('GET', '/admin/api/auth/session')).status).toBe(200);
    }
    // A storage fault switched on through instance 2 fails presigns on instance 3 (and its hits are counted there).
    const other2 = Object.assign(new ConsoleClient(urls()[1]), { cookie: console1.cookie, csrf: console1.csrf });
    const fault = await other2.call('POST', '/admin/api/storage-faults', { tenant: '*', failure_rate: 1 });
    expect(fault.status).toBe(201);
    await sleep(300);
    const other3 = Object.assign(new ConsoleClient(urls()[2]), { cookie: console1.cookie, csrf: console1.csrf });
    expect(
      (await other3.call('GET', '/admin/api/storage-faults')).body.data.map((f: { id: number }) => f.id),
    ).toContain(fault.body.data.id);
    expect((await other3.call('DELETE', `/admin/api/storage-faults/${fault.body.data.id}`)).status).toBe(200);
    // An operator token issued on instance 3 for `demo` is known on instance 1: another clinic is 403, not 401.
    const token = await other3.call('POST', '/admin/api/operator-tokens', { label: 'cluster', tenants: ['demo'] });
    expect(token.status).toBe(201);
    const elsewhere = await fetch(`${urls()[0]}/admin/api/automation/tenants/clinica-b/reset`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.body.data.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(elsewhere.status).toBe(403);
    expect(((await elsewhere.json()) as { error: { code: string } }).error.code).toBe('ADMIN_FORBIDDEN');
  });
});

describe('one instance killed with SIGKILL during writes', () => {
  it('loses nothing acknowledged, executes nothing twice, and the others keep answering', async () => {
    const key = await freshKey();
    const victim = cluster.gateways[1];
    const body = (i: number) => ({
      nome: `Paciente Queda ${String(i).padStart(2, '0')}`,
      cpf: null,
      data_nascimento: '1970-05-06',
    });
    const TOTAL = 60;
    type Result = { i: number; answer: Awaited<ReturnType<typeof call>> | null };
    const results: Result[] = [];
    let next = 0;
    let killed = false;
    // Six writers, each sending its next write as soon as the last is answered; the victim dies after ten answers.
    const writer = async () => {
      while (next < TOTAL) {
        const i = next++;
        const answer = await call(
          victim.url,
          { method: 'POST', path: '/v1/pacientes', body: body(i), idempotencyKey: `queda-${i}` },
          key,
        ).catch(() => null);
        results.push({ i, answer });
        if (!killed && results.filter((r) => r.answer?.status === 201).length >= 10) {
          killed = true;
          victim.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 6 }, writer));
    await victim.exited;
    expect(killed).toBe(true);
    // Some writes were cut by the kill (no answer), some were answered before it.
    expect(results.filter((r) => r.answer === null).length).toBeGreaterThan(0);
    const acknowledged = results.filter((r) => r.answer?.status === 201);
    // The others keep answering while it is down.
    for (const url of [urls()[0], urls()[2]]) expect((await call(url, { path: '/v1/ping' }, key)).status).toBe(200);
    // Back with the same instance id: it frees the reservations it left, so the retries execute (or replay) at once.
    await cluster.restartGateway(2);
    for (const { i } of results) {
      const retry = await call(
        urls()[i % 2 === 0 ? 0 : 2],
        { method: 'POST', path: '/v1/pacientes', body: body(i), idempotencyKey: `queda-${i}` },
        key,
      );
      expect(retry.status, retry.text).toBe(201);
      const first = acknowledged.find((a) => a.i === i);
      if (first) expect(retry.body.data.id).toBe(first.answer!.body.data.id);
    }
    const listed = await call(
      urls()[0],
      { path: `/v1/pacientes?nome=${encodeURIComponent('Paciente Queda')}&limit=100` },
      key,
    );
    const names = listed.body.data.map((p: { nome: string }) => p.nome.toUpperCase()).sort();
    expect(names).toEqual(Array.from({ length: TOTAL }, (_, i) => body(i).nome.toUpperCase()).sort());
    // Every acknowledged write is in the journal.
    const journaled = new Set(
      (
        await services.gatewayDb.db
          .selectFrom('audit_log')
          .select('request_id')
          .where('chave_id', '=', key.chaveId)
          .execute()
      ).map((r) => r.request_id),
    );
    for (const a of acknowledged) expect(journaled.has(a.answer!.body.meta.request_id)).toBe(true);
  }, 120_000);
});
