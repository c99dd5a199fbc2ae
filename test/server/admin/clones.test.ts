import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type * as Minio from 'minio';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFirstStartStack, writeOnDemo, type FirstStartStack } from '../../helpers/first-start.ts';
import type { TestStack } from '../../helpers/stack.ts';
import type { Credentials } from '../../helpers/signed-client.ts';
import { gatewayRows } from '../../helpers/journal.ts';
import { createS3Client } from '../../../shared-node/s3-client.ts';
import { takeFirstStartSnapshot } from '../../../server/tenants/tenant-reset.ts';
import { ConsoleClient } from './console-client.ts';

// Issue 30 § Ephemeral clinics, on the real first start (seed of demo, sandbox, clinica-b), real S3, signed /v1
// calls; on SQLite and (postgres project) PostgreSQL for the gateway's state.
vi.setConfig({ testTimeout: 120_000 });

const CAP = 4;
let first: FirstStartStack;
let stack: TestStack;
let demo: Credentials;
let client: ConsoleClient;
let s3: Minio.Client;

beforeAll(async () => {
  // Read by the console API at start, like ALLOW_TENANT_RESET.
  process.env.EPHEMERAL_CLINICS_MAX = String(CAP);
  first = await startFirstStartStack();
  ({ stack, demo } = first);
  client = new ConsoleClient(stack.gatewayUrl);
  const { operator } = first.credentials;
  expect((await client.login(operator.username, operator.password)).status).toBe(200);
  s3 = createS3Client({
    ...stack.config.s3.internal,
    accessKey: stack.config.s3.accessKey,
    secretKey: stack.config.s3.secretKey,
    bucket: stack.config.s3.bucket,
    region: stack.config.s3.region,
  });
}, 180_000);

// A failed test leaves no clone to count against the next one's cap.
afterEach(async () => {
  for (const t of (await client.call('GET', '/admin/api/tenants')).body.data as any[])
    if (t.expires_at) await client.call('DELETE', `/admin/api/tenants/${t.slug}`, {});
});

afterAll(async () => {
  delete process.env.EPHEMERAL_CLINICS_MAX;
  await first?.stop();
});

const credsOf = (clone: { api_key: string; api_secret: string }): Credentials => ({
  apiKey: clone.api_key,
  apiSecret: clone.api_secret,
});

async function objectsUnder(prefix: string): Promise<string[]> {
  const names: string[] = [];
  for await (const item of s3.listObjectsV2(stack.config.s3.bucket, prefix, true))
    names.push((item as { name: string }).name);
  return names;
}

const backendFile = (...parts: string[]) => path.join(stack.dataDir, 'backend', ...parts);

async function automation(token: string, method: string, target: string, body: unknown = {}) {
  const res = await request(`${stack.gatewayUrl}/admin/api/automation${target}`, {
    method: method as 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

async function issueToken(tenants: string[] | '*', clone: boolean): Promise<{ id: number; token: string }> {
  const res = await client.call('POST', '/admin/api/operator-tokens', {
    label: `clones ${randomUUID()}`,
    tenants,
    clone,
  });
  expect(res.status, JSON.stringify(res.body.error)).toBe(201);
  expect(res.body.data.clone).toBe(clone);
  return { id: res.body.data.id, token: res.body.data.token };
}

async function cloneDemo(body: Record<string, unknown> = {}) {
  const res = await client.call('POST', '/admin/api/tenants/demo/clone', body);
  expect(res.status, JSON.stringify(res.body.error)).toBe(201);
  return res.body.data as {
    slug: string;
    api_key: string;
    api_secret: string;
    chave_id: number;
    expires_at: string;
    files_copied: number;
  };
}

/**
 * Moves the appliance clock on by `seconds` (a clock move runs the sweep, as the 30-second timer and every start
 * do), waits until the clinic is no longer registered, then puts the clock back to real time.
 */
async function goneAfterClockMove(slug: string, seconds: number): Promise<void> {
  try {
    expect((await client.call('PUT', '/admin/api/clock', { advance_seconds: seconds })).status).toBe(200);
    await vi.waitFor(
      async () => expect(await gatewayRows(stack, 'SELECT id FROM tenants WHERE slug = ?', slug)).toEqual([]),
      { timeout: 15_000, interval: 100 },
    );
  } finally {
    expect((await client.call('DELETE', '/admin/api/clock')).status).toBe(200);
  }
}

/** A patient written with its own Idempotency-Key. */
const writePatient = (creds: Credentials, nome: string) =>
  stack.call(
    {
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome, data_nascimento: '1990-01-01', sexo: 'FEM' },
      idempotencyKey: randomUUID(),
    },
    creds,
  );

const patientName = async (creds: Credentials, id: number) => {
  const res = await stack.call({ path: `/v1/pacientes/${id}` }, creds);
  return res.status === 200 ? (res.body.data.nome as string) : res.body.error.code;
};

describe('a clone of demo', () => {
  it('copies the first-start state at file level (stored files under its own prefix), with its own all-scopes key; writes on either side stay on that side; a reset puts it back to the template; a drop removes everything but the journal', async () => {
    // demo's first-start state with a stored file in it: a report whose PDF is under `demo/`.
    const written = await writeOnDemo(stack, demo);
    await takeFirstStartSnapshot(stack.backend, 'demo');
    const demoObjects = await objectsUnder('demo/');
    expect(demoObjects.length).toBeGreaterThan(0);

    const clone = await cloneDemo({ ttl: '2h' });
    expect(clone.slug).toMatch(/^demo-[0-9a-f]{6}$/);
    expect(Date.parse(clone.expires_at) - Date.now()).toBeGreaterThan(7_000_000);
    expect(clone.files_copied).toBe(demoObjects.length);
    const mine = credsOf(clone);
    expect(existsSync(backendFile(`${clone.slug}.db`))).toBe(true);
    expect(existsSync(backendFile('pristine', `${clone.slug}.db`))).toBe(true);
    expect((await objectsUnder(`${clone.slug}/`)).length).toBe(demoObjects.length);

    const listed = (await client.call('GET', '/admin/api/tenants')).body.data as any[];
    expect(listed.find((t) => t.slug === clone.slug)).toMatchObject({ template: 'demo', expires_at: clone.expires_at });
    expect(listed.find((t) => t.slug === 'demo')).toMatchObject({ template: null, expires_at: null });

    // Same data as the template: the patient demo had at its (new) first start, and its report file.
    const demoTotal = (await stack.call({ path: '/v1/pacientes?limit=1' }, demo)).body.meta.total;
    expect((await stack.call({ path: '/v1/pacientes?limit=1' }, mine)).body.meta.total).toBe(demoTotal);
    expect(await patientName(mine, written.patientId)).toBe(await patientName(demo, written.patientId));
    const laudos = (await stack.call({ path: `/v1/laudos?paciente_id=${written.patientId}` }, mine)).body.data;
    expect(laudos.length).toBe(1);
    const file = await stack.call({ path: `/v1/laudos/${laudos[0].id}/arquivo` }, mine);
    expect(file.status).toBe(302);
    expect(file.headers.location).toContain(`/${clone.slug}/`);
    expect((await request(file.headers.location as string)).statusCode).toBe(200);

    // Writes on the clone stay there, writes on the template stay there (same next id on both sides).
    const onClone = await writePatient(mine, 'Paciente Do Clone');
    expect(onClone.status, JSON.stringify(onClone.body.error)).toBe(201);
    const id = onClone.body.data.id as number;
    expect(await patientName(demo, id)).toBe('RES_NOT_FOUND');
    const onDemo = await writePatient(demo, 'Paciente Da Demo');
    expect(onDemo.body.data.id).toBe(id);
    expect(await patientName(mine, id)).toBe('PACIENTE DO CLONE');
    expect(await patientName(demo, id)).toBe('PACIENTE DA DEMO');
    expect((await stack.call({ path: '/v1/pacientes?limit=1' }, demo)).body.meta.total).toBe(demoTotal + 1);

    // The existing reset puts the clone back to its template.
    const reset = await client.call('POST', `/admin/api/tenants/${clone.slug}/reset`, {});
    expect(reset.status, JSON.stringify(reset.body.error)).toBe(200);
    expect(await patientName(mine, id)).toBe('RES_NOT_FOUND');
    expect(await patientName(demo, id)).toBe('PACIENTE DA DEMO');

    // One more write under an Idempotency-Key, then the drop.
    const again = await writePatient(mine, 'Paciente Antes Do Drop');
    expect(again.status).toBe(201);
    expect(
      (await gatewayRows(stack, 'SELECT chave_id FROM idempotency_keys WHERE chave_id = ?', clone.chave_id)).length,
    ).toBe(1);
    const journalBefore = await gatewayRows(stack, 'SELECT id FROM audit_log WHERE tenant_slug = ?', clone.slug);
    expect(journalBefore.length).toBeGreaterThan(5);

    const dropped = await client.call('DELETE', `/admin/api/tenants/${clone.slug}`, {});
    expect(dropped.status, JSON.stringify(dropped.body.error)).toBe(200);
    expect(dropped.body.data).toMatchObject({
      slug: clone.slug,
      dropped: true,
      keys_removed: 1,
      idempotency_keys_removed: 1,
      files_removed: demoObjects.length,
      ephemeral: true,
      journal_kept: true,
    });
    expect(existsSync(backendFile(`${clone.slug}.db`))).toBe(false);
    expect(existsSync(backendFile(`${clone.slug}.db-wal`))).toBe(false);
    expect(existsSync(backendFile('pristine', `${clone.slug}.db`))).toBe(false);
    expect(await objectsUnder(`${clone.slug}/`)).toEqual([]);
    expect(await objectsUnder('demo/')).toEqual(demoObjects);
    expect(await gatewayRows(stack, 'SELECT id FROM api_keys WHERE id = ?', clone.chave_id)).toEqual([]);
    expect(
      await gatewayRows(stack, 'SELECT chave_id FROM idempotency_keys WHERE chave_id = ?', clone.chave_id),
    ).toEqual([]);
    expect(await gatewayRows(stack, 'SELECT id FROM tenants WHERE slug = ?', clone.slug)).toEqual([]);
    const gone = await stack.call({ path: '/v1/pacientes?limit=1' }, mine);
    expect(gone.status).toBe(401);
    expect(gone.body.error.code).toBe('AUTH_KEY_NOT_FOUND');
    // The journal keeps the clinic's entries under its slug, and gains the drop's.
    const journalAfter = await gatewayRows<{ id: number; detail: string | null }>(
      stack,
      'SELECT id, detail FROM audit_log WHERE tenant_slug = ? ORDER BY id',
      clone.slug,
    );
    expect(journalAfter.map((e) => e.id).slice(0, journalBefore.length)).toEqual(journalBefore.map((e: any) => e.id));
    expect(JSON.parse(journalAfter.at(-1)!.detail!)).toMatchObject({ action: 'tenant.drop', via: 'console' });
    // The clone's secret is in its answer and nowhere in the journal.
    const all = await gatewayRows<{ body: string | null; detail: string | null }>(
      stack,
      'SELECT body, detail FROM audit_log',
    );
    expect(all.some((e) => `${e.body}${e.detail}`.includes(clone.api_secret))).toBe(false);
  });

  it('from a named snapshot: the clone holds the snapshot’s state (not the template’s later writes), and its reset goes back to the snapshot', async () => {
    const before = await writePatient(demo, 'Paciente Do Snapshot');
    expect(before.status, JSON.stringify(before.body.error)).toBe(201);
    const name = `clone-src-${randomUUID().slice(0, 8)}`;
    const saved = await client.call('POST', '/admin/api/tenants/demo/snapshots', { name });
    expect(saved.status, JSON.stringify(saved.body.error)).toBe(201);
    try {
      const after = await writePatient(demo, 'Paciente Depois Do Snapshot');
      expect(after.status).toBe(201);

      const clone = await cloneDemo({ snapshot: name, ttl: '10m' });
      const mine = credsOf(clone);
      const listed = (await client.call('GET', '/admin/api/tenants')).body.data as any[];
      expect(listed.find((t) => t.slug === clone.slug)).toMatchObject({ template: `demo@${name}` });
      expect(await patientName(mine, before.body.data.id)).toBe('PACIENTE DO SNAPSHOT');
      expect(await patientName(mine, after.body.data.id)).toBe('RES_NOT_FOUND');

      // A write on the clone, then its reset: back to the snapshot it was cloned from.
      const onClone = await writePatient(mine, 'Paciente Do Clone De Snapshot');
      expect(onClone.status).toBe(201);
      const reset = await client.call('POST', `/admin/api/tenants/${clone.slug}/reset`, {});
      expect(reset.status, JSON.stringify(reset.body.error)).toBe(200);
      expect(await patientName(mine, before.body.data.id)).toBe('PACIENTE DO SNAPSHOT');
      expect(await patientName(mine, onClone.body.data.id)).toBe('RES_NOT_FOUND');

      // An unknown snapshot is refused, nothing made.
      const unknown = await client.call('POST', '/admin/api/tenants/demo/clone', { snapshot: 'no-such-snapshot' });
      expect(unknown.status).toBe(404);
    } finally {
      await client.call('DELETE', `/admin/api/tenants/demo/snapshots/${name}`);
    }
  });

  it('a doctor-bound key on request; a slug of one’s own; an unknown doctor, a taken slug, a bad time to live are refused with nothing left behind', async () => {
    const slug = `qa-${randomUUID().slice(0, 8)}`;
    const bound = await cloneDemo({ slug, ttl: '90s', medico_id: 1 });
    expect(bound.slug).toBe(slug);
    const key = (await client.call('GET', `/admin/api/tenants/${slug}/keys`)).body.data[0];
    expect(key).toMatchObject({ medico_id: 1 });
    expect(key.escopos.length).toBeGreaterThan(10);

    const taken = await client.call('POST', '/admin/api/tenants/demo/clone', { slug });
    expect(taken.status).toBe(422);
    expect(taken.body.error!.code).toBe('CONFLICT');
    const ttl = await client.call('POST', '/admin/api/tenants/demo/clone', { ttl: '3d' });
    expect(ttl.status).toBe(400);
    expect(ttl.body.error!.code).toBe('VAL_INVALID_PARAM');
    expect(ttl.body.error!.details.field).toBe('ttl');
    const before = (await client.call('GET', '/admin/api/tenants')).body.data.length;
    const doctor = await client.call('POST', '/admin/api/tenants/demo/clone', { medico_id: 999_999 });
    expect(doctor.status).toBe(422);
    expect(doctor.body.error!.code).toBe('INVALID_REFERENCE');
    const unknown = await client.call('POST', '/admin/api/tenants/nao-existe/clone', {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.error!.code).toBe('RES_NOT_FOUND');
    const snapshot = await client.call('POST', '/admin/api/tenants/demo/clone', { snapshot: 'nao-existe' });
    expect(snapshot.status).toBe(404);
    expect(snapshot.body.error!.code).toBe('RES_NOT_FOUND');
    expect((await client.call('GET', '/admin/api/tenants')).body.data.length).toBe(before);
    expect((await client.call('DELETE', `/admin/api/tenants/${slug}`, {})).status).toBe(200);
  });

  it(`at most ${CAP} at once: the next is refused 422 BUSINESS_RULE naming EPHEMERAL_CLINICS_MAX; a drop frees a place`, async () => {
    const made = [];
    for (let i = 0; i < CAP; i++) made.push(await cloneDemo());
    const refused = await client.call('POST', '/admin/api/tenants/demo/clone', {});
    expect(refused.status).toBe(422);
    expect(refused.body.error!.code).toBe('BUSINESS_RULE');
    expect(refused.body.error!.details).toMatchObject({
      limite: CAP,
      existentes: CAP,
      variavel: 'EPHEMERAL_CLINICS_MAX',
    });
    expect((await client.call('DELETE', `/admin/api/tenants/${made[0].slug}`, {})).status).toBe(200);
    made[0] = await cloneDemo();
    for (const clone of made)
      expect((await client.call('DELETE', `/admin/api/tenants/${clone.slug}`, {})).status).toBe(200);
  });

  it('past its time to live (the appliance clock moved) the sweeper drops it: database, first-start copy, files, keys, idempotency entries gone; the journal stays', async () => {
    const clone = await cloneDemo({ ttl: '90s' });
    const mine = credsOf(clone);
    const write = await writePatient(mine, 'Paciente Que Expira');
    expect(write.status).toBe(201);
    expect((await objectsUnder(`${clone.slug}/`)).length).toBeGreaterThan(0);
    // Not yet: a minute on, it is still there.
    expect((await client.call('PUT', '/admin/api/clock', { advance_seconds: 60 })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect((await stack.call({ path: '/v1/pacientes?limit=1' }, mine)).status).toBe(200);
    await goneAfterClockMove(clone.slug, 60);
    expect(existsSync(backendFile(`${clone.slug}.db`))).toBe(false);
    expect(existsSync(backendFile('pristine', `${clone.slug}.db`))).toBe(false);
    expect(await objectsUnder(`${clone.slug}/`)).toEqual([]);
    expect(await gatewayRows(stack, 'SELECT id FROM api_keys WHERE id = ?', clone.chave_id)).toEqual([]);
    expect(
      await gatewayRows(stack, 'SELECT chave_id FROM idempotency_keys WHERE chave_id = ?', clone.chave_id),
    ).toEqual([]);
    expect((await stack.call({ path: '/v1/pacientes?limit=1' }, mine)).body.error.code).toBe('AUTH_KEY_NOT_FOUND');
    const journal = await gatewayRows<{ detail: string | null; source: string }>(
      stack,
      'SELECT detail, source FROM audit_log WHERE tenant_slug = ? ORDER BY id',
      clone.slug,
    );
    // Its two signed calls (the write, the read a minute on); the key's last call named a key that was gone.
    expect(journal.filter((e) => e.source === 'api').length).toBe(2);
    expect(JSON.parse(journal.at(-1)!.detail!)).toMatchObject({
      action: 'tenant.drop',
      via: 'sweeper',
      keys_removed: 1,
    });
  });
});

describe('drops that race or die half-way', () => {
  it('two drops of one clone at once: one drops it, the other is told (409 CONCURRENT_REQUEST or 404), nothing is left', async () => {
    const clone = await cloneDemo();
    const [a, b] = await Promise.all([
      client.call('DELETE', `/admin/api/tenants/${clone.slug}`, {}),
      client.call('DELETE', `/admin/api/tenants/${clone.slug}`, {}),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses[0]).toBe(200);
    expect([404, 409]).toContain(statuses[1]);
    expect(await gatewayRows(stack, 'SELECT id FROM tenants WHERE slug = ?', clone.slug)).toEqual([]);
    expect(existsSync(backendFile(`${clone.slug}.db`))).toBe(false);
  });

  it('a drop claimed by a gateway that died (claim over a minute old) is finished by the sweeper', async () => {
    const clone = await cloneDemo({ ttl: '2h' });
    // What a gateway leaves when it dies between its claim and the end of the drop.
    await gatewayRows(
      stack,
      "UPDATE tenants SET status = 'dropping', dropping_at = '2000-01-01T00:00:00.000Z' WHERE slug = ?",
      clone.slug,
    );
    await goneAfterClockMove(clone.slug, 1);
    expect(existsSync(backendFile(`${clone.slug}.db`))).toBe(false);
    expect(await gatewayRows(stack, 'SELECT id FROM api_keys WHERE id = ?', clone.chave_id)).toEqual([]);
  });
});

describe('operator tokens and clones', () => {
  it('cloning needs the clone permission and the template among the token’s clinics; the token then resets and drops what it cloned, not another token’s clone nor a permanent clinic', async () => {
    const plain = await issueToken(['demo'], false);
    const noPermission = await automation(plain.token, 'POST', '/tenants/demo/clone');
    expect(noPermission.status).toBe(403);
    expect(noPermission.body.error.code).toBe('ADMIN_FORBIDDEN');
    expect(noPermission.body.error.details.field).toBe('clone');

    const elsewhere = await issueToken(['clinica-b'], true);
    const otherTemplate = await automation(elsewhere.token, 'POST', '/tenants/demo/clone');
    expect(otherTemplate.status).toBe(403);
    expect(otherTemplate.body.error.code).toBe('ADMIN_FORBIDDEN');

    const qa = await issueToken(['demo'], true);
    const made = await automation(qa.token, 'POST', '/tenants/demo/clone', { ttl: '30m' });
    expect(made.status, JSON.stringify(made.body.error)).toBe(201);
    const slug = made.body.data.slug as string;
    const reset = await automation(qa.token, 'POST', `/tenants/${slug}/reset`);
    expect(reset.status, JSON.stringify(reset.body.error)).toBe(200);

    // Another token with the permission on demo did not clone it.
    const colleague = await issueToken(['demo'], true);
    const notHis = await automation(colleague.token, 'DELETE', `/tenants/${slug}`);
    expect(notHis.status).toBe(403);
    expect(notHis.body.error.code).toBe('ADMIN_FORBIDDEN');
    // A token drops ephemeral clinics only.
    const permanent = await automation(qa.token, 'DELETE', '/tenants/demo');
    expect(permanent.status).toBe(403);
    expect(permanent.body.error.code).toBe('OPERATION_NOT_ALLOWED');

    const dropped = await automation(qa.token, 'DELETE', `/tenants/${slug}`);
    expect(dropped.status, JSON.stringify(dropped.body.error)).toBe(200);
    expect(dropped.body.data).toMatchObject({ slug, dropped: true, keys_removed: 1 });
    const entry = await gatewayRows<{ detail: string }>(
      stack,
      'SELECT detail FROM audit_log WHERE tenant_slug = ? ORDER BY id DESC LIMIT 1',
      slug,
    );
    expect(JSON.parse(entry[0].detail)).toMatchObject({
      action: 'tenant.drop',
      via: 'operator_token',
      token_id: qa.id,
    });
  });
});

describe('dropping a permanent clinic', () => {
  it('needs its slug typed back (confirm); then goes like a clone', async () => {
    const created = await client.call('POST', '/admin/api/tenants', { slug: 'clinica-permanente', nome: 'Permanente' });
    expect(created.status).toBe(201);
    const refused = await client.call('DELETE', '/admin/api/tenants/clinica-permanente', {});
    expect(refused.status).toBe(400);
    expect(refused.body.error!.code).toBe('VAL_INVALID_PARAM');
    expect(refused.body.error!.details.field).toBe('confirm');
    const wrong = await client.call('DELETE', '/admin/api/tenants/clinica-permanente', { confirm: 'demo' });
    expect(wrong.status).toBe(400);
    expect(existsSync(backendFile('clinica-permanente.db'))).toBe(true);
    const dropped = await client.call('DELETE', '/admin/api/tenants/clinica-permanente', {
      confirm: 'clinica-permanente',
    });
    expect(dropped.status, JSON.stringify(dropped.body.error)).toBe(200);
    expect(dropped.body.data).toMatchObject({ dropped: true, ephemeral: false });
    expect(existsSync(backendFile('clinica-permanente.db'))).toBe(false);
    const missing = await client.call('DELETE', '/admin/api/tenants/clinica-permanente', {
      confirm: 'clinica-permanente',
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error!.code).toBe('RES_NOT_FOUND');
  });
});
