import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NEW_PATIENT, startFirstStartStack, writeOnDemo, type FirstStartStack } from '../../helpers/first-start.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import type { Credentials } from '../../helpers/signed-client.ts';
import { journalEntries } from '../../helpers/journal.ts';
import { logicalDump, markerCount, rawCall, readTar, storedObjects, writeTar } from '../../helpers/snapshots.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { ConsoleClient } from './console-client.ts';

// Issue 30 § 2: named snapshots of a clinic through the automation API (operator token) and the console API, on
// the demo clinic as the real first start makes it; export on one data dir, import on another.
vi.setConfig({ testTimeout: 180_000 });

let first: FirstStartStack;
let stack: TestStack;
let demo: Credentials;
let client: ConsoleClient;
let token: string;

beforeAll(async () => {
  first = await startFirstStartStack();
  ({ stack, demo } = first);
  client = new ConsoleClient(stack.gatewayUrl);
  const { operator } = first.credentials;
  expect((await client.login(operator.username, operator.password)).status).toBe(200);
  const issued = await client.call('POST', '/admin/api/operator-tokens', { label: 'qa snapshots', tenants: ['demo'] });
  expect(issued.status).toBe(201);
  token = issued.body.data.token;
}, 240_000);

afterAll(async () => {
  await first?.stop();
});

/** An automation call as a test's beforeEach sends it: bearer token, JSON body. */
async function automation(method: string, target: string, body?: unknown, bearer = token) {
  const res = await rawCall(`${stack.gatewayUrl}/admin/api/automation${target}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
  });
  return { status: res.status, body: res.json, bytes: res.bytes, headers: res.headers };
}

const demoState = async () => ({
  rows: logicalDump(first.dataDir, 'demo'),
  files: await storedObjects(stack, 'demo/'),
});

const patientsTotal = async (s: TestStack, creds: Credentials) => {
  const res = await s.call({ path: '/v1/pacientes?limit=1' }, creds);
  expect(res.status).toBe(200);
  return res.body.meta.total as number;
};

describe('save, list, restore, delete (automation token bound to the clinic)', () => {
  it('a round trip gives identical data: every table row and every stored object; idempotency keys and markers are forgotten', async () => {
    const before = await demoState();
    const saved = await automation('POST', '/tenants/demo/snapshots', { name: 'antes' });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    expect(saved.body.data).toMatchObject({
      name: 'antes',
      slug: 'demo',
      files: before.files.length,
      release: '1.6.0',
    });
    expect(saved.body.data.rows).toBeGreaterThan(13_000);

    const written = await writeOnDemo(stack, demo);
    const changed = await demoState();
    expect(changed.rows).not.toEqual(before.rows);
    expect(changed.files.length).toBe(before.files.length + 1);
    expect(markerCount(first.dataDir, 'demo')).toBe(4);

    const restored = await automation('POST', '/tenants/demo/snapshots/antes/restore', {});
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.data).toMatchObject({
      slug: 'demo',
      name: 'antes',
      nome: 'Clinica Demo',
      rows_restored: saved.body.data.rows,
      idempotency_keys_removed: 4,
      idempotency_markers_removed: 4,
      files_restored: before.files.length,
      files_removed: 1,
    });
    expect(await demoState()).toEqual(before);
    expect(markerCount(first.dataDir, 'demo')).toBe(0);

    // The key the patient was written with executes again (no replay of a body from the other state).
    const again = await stack.call(
      { method: 'POST', path: '/v1/pacientes', body: NEW_PATIENT, idempotencyKey: written.patientKey },
      demo,
    );
    expect(again.status).toBe(201);
    expect(again.headers['idempotency-replay']).toBe('false');
    expect((await automation('POST', '/tenants/demo/snapshots/antes/restore', {})).status).toBe(200);
    expect(await demoState()).toEqual(before);

    const list = await automation('GET', '/tenants/demo/snapshots');
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: any) => s.name)).toContain('antes');
  });

  it('journals each action as tenant.snapshot.* under the clinic, the journal itself untouched', async () => {
    const entries = (await journalEntries(stack)).filter((e) => e.tenant_slug === 'demo' && e.source === 'console');
    const actions = entries.map((e) => JSON.parse(e.detail ?? '{}').action);
    expect(actions).toEqual(expect.arrayContaining(['tenant.snapshot.save', 'tenant.snapshot.restore']));
    const restore = entries.find((e) => JSON.parse(e.detail ?? '{}').action === 'tenant.snapshot.restore')!;
    expect(JSON.parse(restore.detail!)).toMatchObject({
      via: 'operator_token',
      slug: 'demo',
      name: 'antes',
      journal_kept: true,
    });
  });

  it('a restore under concurrent signed reads never answers a mix of two states (503 or wait, never both)', async () => {
    const a = await automation('POST', '/tenants/demo/snapshots', { name: 'estado-a' });
    expect(a.status).toBe(201);
    const totalA = await patientsTotal(stack, demo);
    await writeOnDemo(stack, demo);
    const totalB = await patientsTotal(stack, demo);
    expect(totalB).toBe(totalA + 1);
    expect((await automation('POST', '/tenants/demo/snapshots', { name: 'estado-b' })).status).toBe(201);
    const filesA = (await automation('GET', '/tenants/demo/snapshots')).body.data.find(
      (s: any) => s.name === 'estado-a',
    ).files as number;

    let reading = true;
    const seen = { totals: new Set<number>(), unavailable: 0, answers: 0 };
    const reader = async () => {
      while (reading) {
        // One answer, two facts from the state it read: the total and the rows of the last page.
        const res = await stack.call({ path: `/v1/pacientes?limit=200&offset=${totalA - 50}` }, demo);
        if (res.status === 503) {
          expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
          seen.unavailable++;
          continue;
        }
        expect(res.status, res.text).toBe(200);
        const total = res.body.meta.total as number;
        expect([totalA, totalB]).toContain(total);
        expect(res.body.data.length).toBe(total - (totalA - 50));
        seen.totals.add(total);
        seen.answers++;
      }
    };
    const readers = Array.from({ length: 4 }, reader);
    try {
      for (let i = 0; i < 6; i++) {
        const target = i % 2 === 0 ? 'estado-a' : 'estado-b';
        const res = await automation('POST', `/tenants/demo/snapshots/${target}/restore`, {});
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(await patientsTotal(stack, demo)).toBe(target === 'estado-a' ? totalA : totalB);
        expect((await storedObjects(stack, 'demo/')).length).toBe(target === 'estado-a' ? filesA : filesA + 1);
      }
    } finally {
      reading = false;
      await Promise.all(readers);
    }
    expect(seen.answers).toBeGreaterThan(10);
    expect([...seen.totals].sort()).toEqual([totalA, totalB].sort());
    console.log(`concurrent reads during 6 restores: ${seen.answers} answers, ${seen.unavailable} 503`);
    expect((await automation('POST', '/tenants/demo/snapshots/antes/restore', {})).status).toBe(200);
  });

  it('names, duplicates and missing snapshots: 400, 422 CONFLICT (replace overwrites), 404; delete removes it and its objects', async () => {
    const bad = await automation('POST', '/tenants/demo/snapshots', { name: '../x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VAL_INVALID_PARAM', details: { field: 'name' } });
    const dup = await automation('POST', '/tenants/demo/snapshots', { name: 'antes' });
    expect(dup.status).toBe(422);
    expect(dup.body.error.code).toBe('CONFLICT');
    expect((await automation('POST', '/tenants/demo/snapshots', { name: 'antes', replace: true })).status).toBe(201);
    const missing = await automation('POST', '/tenants/demo/snapshots/nao-existe/restore', {});
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('RES_NOT_FOUND');
    expect((await automation('GET', '/tenants/demo/snapshots/nao-existe/export')).status).toBe(404);
    expect((await automation('POST', '/tenants/demo/snapshots/antes/restore', { files: true })).status).toBe(400);

    expect((await storedObjects(stack, '_snapshots/demo/estado-b/')).length).toBe(1);
    const deleted = await automation('DELETE', '/tenants/demo/snapshots/estado-b');
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ slug: 'demo', name: 'estado-b', deleted: true });
    expect(await storedObjects(stack, '_snapshots/demo/estado-b/')).toEqual([]);
    expect(existsSync(path.join(first.dataDir, 'backend', 'snapshots', 'demo', 'estado-b.db'))).toBe(false);
    const names = (await automation('GET', '/tenants/demo/snapshots')).body.data.map((s: any) => s.name);
    expect(names).not.toContain('estado-b');
    expect((await automation('DELETE', '/tenants/demo/snapshots/estado-b')).status).toBe(404);
  });

  it('a token bound to another clinic is refused (403 ADMIN_FORBIDDEN) on every snapshot route, and nothing is saved there', async () => {
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/tenants/clinica-b/snapshots'],
      ['POST', '/tenants/clinica-b/snapshots', { name: 'alheio' }],
      ['POST', '/tenants/clinica-b/snapshots/alheio/restore', {}],
      ['DELETE', '/tenants/clinica-b/snapshots/alheio'],
      ['GET', '/tenants/clinica-b/snapshots/alheio/export'],
    ];
    for (const [method, target, body] of routes) {
      const res = await automation(method, target, body);
      expect(res.status, `${method} ${target}`).toBe(403);
      expect(res.body.error.code).toBe('ADMIN_FORBIDDEN');
    }
    const archive = (await automation('GET', '/tenants/demo/snapshots/antes/export')).bytes;
    const imported = await rawCall(`${stack.gatewayUrl}/admin/api/automation/tenants/clinica-b/snapshots/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: archive,
    });
    expect(imported.status).toBe(403);
    expect(imported.json.error.code).toBe('ADMIN_FORBIDDEN');
    expect(existsSync(path.join(first.dataDir, 'backend', 'snapshots', 'clinica-b'))).toBe(false);
    // The console (an admin's session) may act on any clinic.
    const listed = await client.call('GET', '/admin/api/tenants/clinica-b/snapshots');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([]);
  });
});

describe('export on one data dir, import on another', () => {
  let other: TestStack;
  let archive: Buffer;
  let otherClient: ConsoleClient;
  const PASSWORD = 'correct-horse-battery';

  beforeAll(async () => {
    other = await startTestStack();
    await ensureOperator(other.gatewayDb.db, 'operador', PASSWORD);
    otherClient = new ConsoleClient(other.gatewayUrl);
    expect((await otherClient.login('operador', PASSWORD)).status).toBe(200);
    // The state to carry: the first start plus a patient, an exam with its report file and an appointment.
    await writeOnDemo(stack, demo);
    expect((await automation('POST', '/tenants/demo/snapshots', { name: 'para-levar' })).status).toBe(201);
    const exported = await automation('GET', '/tenants/demo/snapshots/para-levar/export');
    expect(exported.status).toBe(200);
    expect(exported.headers['content-disposition']).toBe('attachment; filename="demo--para-levar.snapshot.tar"');
    archive = exported.bytes;
  }, 180_000);

  afterAll(async () => other?.stop());

  const importInto = (slug: string, body: Buffer, query = '') =>
    rawCall(`${other.gatewayUrl}/admin/api/tenants/${slug}/snapshots/import${query}`, {
      method: 'POST',
      headers: { cookie: otherClient.cookie!, 'x-csrf-token': otherClient.csrf! },
      body,
    });

  it('the archive holds a manifest (format, release, checksums) first, the database and every file', async () => {
    const entries = await readTar(archive);
    expect([...entries.keys()][0]).toBe('manifest.json');
    const manifest = JSON.parse(entries.get('manifest.json')!.toString());
    expect(manifest).toMatchObject({ format: 1, name: 'para-levar', slug: 'demo', release: '1.6.0' });
    expect(manifest.files).toHaveLength(1);
    expect(manifest.files[0].key).toMatch(/^demo\/laudos\//);
    expect([...entries.keys()].sort()).toEqual(
      ['database.db', `files/${manifest.files[0].key}`, 'manifest.json'].sort(),
    );
    expect(entries.get('database.db')!.length).toBe(manifest.bytes);
  });

  it('into a new clinic: registered in the gateway, identical data (keys rewritten to its slug), its own keys work', async () => {
    const res = await importInto('demo-copia', archive);
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.data).toMatchObject({
      slug: 'demo-copia',
      name: 'para-levar',
      nome: 'Clinica Demo',
      created: true,
      source_slug: 'demo',
      source_release: '1.6.0',
      files_restored: 1,
    });
    expect(logicalDump(other.dataDir, 'demo-copia')).toEqual(
      logicalDump(first.dataDir, 'demo', { from: 'demo', to: 'demo-copia' }),
    );
    expect(await storedObjects(other, 'demo-copia/')).toEqual(await storedObjects(stack, 'demo/'));
    const tenants = await otherClient.call('GET', '/admin/api/tenants');
    expect(tenants.body.data.find((t: any) => t.slug === 'demo-copia')).toMatchObject({ nome: 'Clinica Demo' });
    const key = await other.newKey({ tenant: 'demo-copia' });
    expect(await patientsTotal(other, key)).toBe(await patientsTotal(stack, demo));
    const entry = (await journalEntries(other)).filter(
      (e) => e.tenant_slug === 'demo-copia' && e.source === 'console',
    )[0];
    expect(JSON.parse(entry.detail!)).toMatchObject({
      action: 'tenant.snapshot.import',
      via: 'console',
      created: true,
    });
    // Its first-start state is the archive's: a reset comes back to it.
    expect((await otherClient.call('POST', '/admin/api/tenants/demo-copia/reset', {})).status).toBe(200);
    expect(logicalDump(other.dataDir, 'demo-copia')).toEqual(
      logicalDump(first.dataDir, 'demo', { from: 'demo', to: 'demo-copia' }),
    );
  });

  it('into an existing clinic: restored (same data), its idempotency keys forgotten, kept as a snapshot of it', async () => {
    const key = await other.newKey({ tenant: 'demo-copia' });
    const idem = randomUUID();
    const created = await other.call(
      { method: 'POST', path: '/v1/pacientes', body: NEW_PATIENT, idempotencyKey: idem },
      key,
    );
    expect(created.status).toBe(201);
    const res = await importInto('demo-copia', archive, '?name=de-novo');
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.data).toMatchObject({ created: false, name: 'de-novo', idempotency_keys_removed: 1 });
    expect(logicalDump(other.dataDir, 'demo-copia')).toEqual(
      logicalDump(first.dataDir, 'demo', { from: 'demo', to: 'demo-copia' }),
    );
    const names = (await otherClient.call('GET', '/admin/api/tenants/demo-copia/snapshots')).body.data.map(
      (s: any) => s.name,
    );
    expect(names.sort()).toEqual(['de-novo', 'para-levar']);
    const replay = await other.call(
      { method: 'POST', path: '/v1/pacientes', body: NEW_PATIENT, idempotencyKey: idem },
      key,
    );
    expect(replay.headers['idempotency-replay']).toBe('false');
  });

  it('a damaged, truncated, foreign or newer-format file is refused (400, with the reason) before anything changes', async () => {
    const entries = await readTar(archive);
    const manifest = JSON.parse(entries.get('manifest.json')!.toString());
    const dbEntry = entries.get('database.db')!;
    const flipped = Buffer.from(dbEntry);
    flipped[Math.floor(flipped.length / 2)] ^= 0xff;
    const rebuilt = (over: Partial<Record<string, Buffer>>, order = [...entries.keys()]) =>
      writeTar(order.map((name) => [name, over[name] ?? entries.get(name)!]));
    const cases: Array<[string, Buffer, string]> = [
      ['bad checksum (database)', await rebuilt({ 'database.db': flipped }), 'checksum'],
      [
        'bad checksum (file)',
        await rebuilt({ [`files/${manifest.files[0].key}`]: Buffer.from('%PDF-1.7 outro') }),
        'checksum',
      ],
      ['truncated', archive.subarray(0, Math.floor(archive.length / 2)), 'truncated'],
      ['a file missing', await rebuilt({}, ['manifest.json', 'database.db']), 'truncated'],
      ['not an archive', Buffer.from('{"isto": "nao e um tar"}'.repeat(40)), 'not_a_snapshot'],
      ['empty', Buffer.alloc(0), 'not_a_snapshot'],
      ['manifest not first', await rebuilt({}, ['database.db', 'manifest.json']), 'not_a_snapshot'],
      [
        'newer format',
        await rebuilt({ 'manifest.json': Buffer.from(JSON.stringify({ ...manifest, format: 2 })) }),
        'newer_format',
      ],
    ];
    const before = logicalDump(other.dataDir, 'demo-copia');
    const filesBefore = await storedObjects(other, '');
    const snapshotsBefore = (await otherClient.call('GET', '/admin/api/tenants/demo-copia/snapshots')).body.data;
    for (const [what, body, reason] of cases) {
      for (const slug of ['demo-copia', 'nunca-criada']) {
        const res = await importInto(slug, body, '?name=estragado');
        expect(res.status, `${what} into ${slug}: ${JSON.stringify(res.json)}`).toBe(400);
        expect(res.json.error.code, what).toBe('VAL_INVALID_PARAM');
        expect(res.json.error.details, what).toMatchObject({ field: 'archive', reason });
      }
    }
    const newer = await importInto('demo-copia', cases.at(-1)![1]);
    expect(newer.json.error.message).toMatch(/formato 2, mais novo/);
    expect(newer.json.error.details).toMatchObject({ format: 2, supported_format: 1 });
    // Nothing changed: the clinic's data, its snapshots, the bucket; the new slug exists nowhere.
    expect(logicalDump(other.dataDir, 'demo-copia')).toEqual(before);
    expect(await storedObjects(other, '')).toEqual(filesBefore);
    expect((await otherClient.call('GET', '/admin/api/tenants/demo-copia/snapshots')).body.data).toEqual(
      snapshotsBefore,
    );
    expect((await otherClient.call('GET', '/admin/api/tenants')).body.data.map((t: any) => t.slug)).not.toContain(
      'nunca-criada',
    );
    expect(existsSync(path.join(other.dataDir, 'backend', 'nunca-criada.db'))).toBe(false);
    expect(readdirSync(path.join(other.dataDir, 'backend', 'snapshots', '.staging'))).toEqual([]);
  });

  it('an archive above the cap is refused from its Content-Length (VAL_FILE_TOO_LARGE), an import without a body 400', async () => {
    // Announced, never sent: the refusal comes from the header alone.
    const res = await new Promise<{ status: number; json: any }>((resolve, reject) => {
      const req = httpRequest(
        `${other.gatewayUrl}/admin/api/tenants/demo-copia/snapshots/import`,
        {
          method: 'POST',
          headers: {
            cookie: otherClient.cookie!,
            'x-csrf-token': otherClient.csrf!,
            'content-type': 'application/octet-stream',
            'content-length': String(3 * 1024 ** 3),
          },
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (c) => chunks.push(c));
          answer.on('end', () => {
            resolve({ status: answer.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) });
            req.destroy();
          });
        },
      );
      req.on('error', reject);
      req.write(Buffer.alloc(1024));
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'VAL_FILE_TOO_LARGE', details: { limit_bytes: 2 * 1024 ** 3 } });
    const none = await otherClient.call('POST', '/admin/api/tenants/demo-copia/snapshots/import', {});
    expect(none.status).toBe(400);
    expect(none.body.error?.details.field).toBe('archive');
  });
});
