import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Client } from '../../shared-node/s3-client.ts';
import { pristineFile } from '../../backend-sim/db/pristine.ts';
import { IDEMPOTENCY_TOKEN_HEADER, IDEMPOTENT_REPLAY_HEADER } from '../../backend-sim/idempotency.ts';
import { seedTenant } from '../../seed/seed.ts';
import { startHarness, TOKEN, type Harness } from './helpers.ts';

// Issue 13 § Reset a tenant: backend-sim's half. A tenant goes back to the copy taken at its first start
// (same ids, same rows, in place on its open connection), its idempotency markers go, and with `files`
// so do the objects uploaded for it.
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ s3: true });
  await seedTenant({
    dataDir: h.dataDir,
    slug: 'demo',
    seed: 'demo-1',
    profile: 'rich',
    patients: 80,
    exams: 300,
    appointments: 80,
  });
  // What first start does for a seeded tenant: register it (the file exists: no automatic copy), then take the copy.
  expect((await h.call('POST', '/admin/tenants', { slug: 'demo', nome: 'Clinica Demo' })).status).toBe(200);
}, 60_000);
afterAll(() => h?.close());

/**
 * Every row of every ordinary table, read through a second connection on the file. The search index
 * (an FTS5 virtual table and its shadow tables) is rebuilt by a reset: its pages may be laid out
 * differently, so it is compared by what it answers (`searches`), not byte for byte.
 */
function dump(slug: string): Record<string, unknown[]> {
  const db = new SQLite(`${h.dataDir}/backend/${slug}.db`, { readonly: true });
  try {
    const tables = db
      .prepare(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .pluck()
      .all() as string[];
    return Object.fromEntries(
      tables.map((t) => [
        t,
        (db.prepare(`SELECT * FROM "${t}"`).all() as unknown[]).map((r) => JSON.stringify(r)).sort(),
      ]),
    );
  } finally {
    db.close();
  }
}

/** What the name search answers for a few needles (ids and totals), through the API. */
async function searches(slug: string): Promise<unknown[]> {
  const out = [];
  for (const nome of ['SILVA', 'ana', 'DEPOIS DO', 'o s', 'ÃO'])
    out.push((await h.call('GET', `/tenants/${slug}/pacientes?limit=200&nome=${encodeURIComponent(nome)}`)).body);
  return out.map((b: any) => ({ ids: b.data.map((p: { id: number }) => p.id), total: b.meta.total }));
}

const newToken = () => createHash('sha256').update(randomUUID()).digest('hex');

async function send(path: string, body: unknown, token?: string) {
  const res = await fetch(h.sim.url + path, {
    method: 'POST',
    headers: {
      'x-internal-token': TOKEN,
      'x-chave-id': '11',
      'x-medico-filtro-id': '0',
      'content-type': 'application/json',
      ...(token ? { [IDEMPOTENCY_TOKEN_HEADER]: token } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), replay: res.headers.get(IDEMPOTENT_REPLAY_HEADER) };
}

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]).toString('base64');

async function objectsUnder(prefix: string): Promise<string[]> {
  const client = createS3Client({ ...h.s3Config!, region: 'us-east-1' });
  const names: string[] = [];
  for await (const item of client.listObjectsV2(h.s3Config!.bucket, prefix, true) as AsyncIterable<{ name?: string }>)
    if (item.name) names.push(item.name);
  return names;
}

describe('POST /admin/tenants/:slug/pristine', () => {
  it('takes the copy once; again without replace keeps it', async () => {
    const first = await h.call('POST', '/admin/tenants/demo/pristine', { replace: true });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ slug: 'demo', created: true });
    expect(first.body.data.bytes).toBeGreaterThan(100_000);
    const again = await h.call('POST', '/admin/tenants/demo/pristine', {});
    expect(again.status).toBe(200);
    expect(again.body.data.created).toBe(false);
  });

  it('a new tenant gets its copy when backend-sim creates it', async () => {
    expect((await h.call('POST', '/admin/tenants', { slug: 'nova', nome: 'Clinica Nova' })).status).toBe(201);
    expect(existsSync(pristineFile(h.dataDir, 'nova'))).toBe(true);
  });

  it('unknown tenant → 404 TENANT_NOT_FOUND', async () => {
    const res = await h.call('POST', '/admin/tenants/nao-existe/pristine', {});
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('TENANT_NOT_FOUND');
  });
});

describe('POST /admin/tenants/:slug/reset', () => {
  it('puts every table back row for row, drops the markers (the same token executes again) and, with files, the uploads', async () => {
    const before = dump('demo');
    expect(before.pacientes.length).toBe(80);
    const searchesBefore = await searches('demo');
    expect(searchesBefore.some((s: any) => s.total > 0)).toBe(true);

    const token = newToken();
    const created = await send(
      '/tenants/demo/pacientes',
      { nome: 'Paciente Depois Do Seed', data_nascimento: '1990-01-02' },
      token,
    );
    expect(created.status).toBe(201);
    const withFile = await send('/tenants/demo/pacientes/1/prontuarios', {
      mensagem: '<p>Retorno</p>',
      anexos: [{ nome: 'foto.PNG', base64: png }],
    });
    expect(withFile.status).toBe(201);
    expect(await objectsUnder('demo/')).toHaveLength(1);
    expect(
      (await h.call('PATCH', '/tenants/demo/settings', { cpf_obrigatorio: true, nome: 'Outro Nome' })).status,
    ).toBe(200);
    const changed = dump('demo');
    expect(changed).not.toEqual(before);
    expect(changed.idempotency_markers).toHaveLength(1);
    expect(await searches('demo')).not.toEqual(searchesBefore);

    const reset = await h.call('POST', '/admin/tenants/demo/reset', { files: true });
    expect(reset.status).toBe(200);
    expect(reset.body.data).toMatchObject({
      slug: 'demo',
      nome: 'Clinica Demo',
      idempotency_markers_removed: 1,
      files_removed: 1,
    });
    expect(reset.body.data.rows).toBeGreaterThan(1000);
    expect(dump('demo')).toEqual(before);
    expect(await searches('demo')).toEqual(searchesBefore);
    expect(await objectsUnder('demo/')).toEqual([]);

    // The marker is gone: the same token executes (no replay) and gets the id it got the first time.
    const again = await send(
      '/tenants/demo/pacientes',
      { nome: 'Paciente Depois Do Seed', data_nascimento: '1990-01-02' },
      token,
    );
    expect(again.status).toBe(201);
    expect(again.replay).toBeNull();
    expect(again.body.data.id).toBe(created.body.data.id);
  });

  it('without files, uploaded objects stay (orphans) and the answer says files_removed: null', async () => {
    await send('/tenants/demo/pacientes/2/prontuarios', { anexos: [{ nome: 'pedido.pdf', base64: 'JVBERi0=' }] });
    const reset = await h.call('POST', '/admin/tenants/demo/reset', {});
    expect(reset.status).toBe(200);
    expect(reset.body.data.files_removed).toBeNull();
    expect(await objectsUnder('demo/')).toHaveLength(1);
  });

  it('a created tenant goes back to empty, with its name', async () => {
    await send('/tenants/nova/pacientes', { nome: 'Alguem Na Nova', data_nascimento: '1990-01-02' });
    const reset = await h.call('POST', '/admin/tenants/nova/reset', {});
    expect(reset.status).toBe(200);
    expect(reset.body.data.nome).toBe('Clinica Nova');
    expect(dump('nova').pacientes).toEqual([]);
  });

  it('is fast: the database part of a reset of an 80-patient, 300-exam tenant takes well under a second', async () => {
    const times: number[] = [];
    for (let i = 0; i < 5; i++)
      times.push((await h.call('POST', '/admin/tenants/demo/reset', {})).body.data.database_ms);
    times.sort((a, b) => a - b);
    expect(times[2]).toBeLessThan(250);
  });

  it('requests running during a reset are served before or after it, never half-way', async () => {
    const writes = Array.from({ length: 8 }, (_, i) =>
      send('/tenants/demo/pacientes', { nome: `Paciente Concorrente ${i}`, data_nascimento: '1990-01-02' }, newToken()),
    );
    const reset = h.call('POST', '/admin/tenants/demo/reset', {});
    const reads = Array.from({ length: 4 }, () => h.call('GET', '/tenants/demo/pacientes?limit=5'));
    const results = await Promise.all([...writes, reset, ...reads]);
    expect(results.map((r) => r.status).sort()).toEqual([...Array(8).fill(201), 200, 200, 200, 200, 200].sort());
    // Whatever was written after the reset stays; what was written before is gone: the rest is the copy.
    await h.call('POST', '/admin/tenants/demo/reset', {});
    expect(dump('demo').pacientes).toHaveLength(80);
  });

  it('a copy taken before a later migration is migrated, then restored', async () => {
    // The copy as the latest migrations (search index, list counts and their triggers) found it: without them.
    const latest = [
      '2026-11-23-005-list-counts-and-search',
      '2026-11-23-006-laudos-counts',
      '2026-11-23-007-search-index-queue',
      '2026-11-23-008-exames-status-counts',
      '2026-11-24-009-append-only-markers-and-queue-by-id',
    ];
    const copy = new SQLite(pristineFile(h.dataDir, 'nova'));
    for (const trigger of copy
      .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'")
      .pluck()
      .all() as string[])
      copy.exec(`DROP TRIGGER ${trigger}`);
    copy.exec(`DROP TABLE pacientes_nome_busca; DROP TABLE pacientes_nome_busca_fila; DROP TABLE pacientes_contagem; DROP TABLE exames_contagem; DROP TABLE laudos_contagem; DROP INDEX pacientes_ids;
      DELETE FROM kysely_migration WHERE name IN ('${latest.join("', '")}')`);
    copy.close();
    await send('/tenants/nova/pacientes', { nome: 'Paciente Antes Do Reset', data_nascimento: '1990-01-02' });
    const reset = await h.call('POST', '/admin/tenants/nova/reset', {});
    expect(reset.status).toBe(200);
    const migrated = new SQLite(pristineFile(h.dataDir, 'nova'), { readonly: true });
    expect(
      migrated
        .prepare(`SELECT COUNT(*) FROM kysely_migration WHERE name IN (${latest.map(() => '?').join(', ')})`)
        .pluck()
        .get(...latest),
    ).toBe(latest.length);
    expect(migrated.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger'").pluck().get()).toBe(19);
    migrated.close();
    expect((await h.call('GET', '/tenants/nova/pacientes?nome=ANTES')).body.meta.total).toBe(0);
    await send('/tenants/nova/pacientes', { nome: 'Paciente Depois Do Reset', data_nascimento: '1990-01-02' });
    const found = await h.call('GET', '/tenants/nova/pacientes?nome=depois');
    expect(found.body.meta.total).toBe(1);
    expect(found.body.data[0].nome).toBe('PACIENTE DEPOIS DO RESET');
  });

  it('a tenant without a first-start copy → 422 INVALID_STATE, nothing changed', async () => {
    await seedTenant({
      dataDir: h.dataDir,
      slug: 'sem-copia',
      seed: 'x',
      profile: 'synthetic',
      patients: 5,
      exams: 0,
      appointments: 0,
    });
    const before = dump('sem-copia');
    const res = await h.call('POST', '/admin/tenants/sem-copia/reset', {});
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('INVALID_STATE');
    expect(dump('sem-copia')).toEqual(before);
  });

  it('unknown tenant → 404; unknown body field → 400', async () => {
    expect((await h.call('POST', '/admin/tenants/nao-existe/reset', {})).body.error.code).toBe('TENANT_NOT_FOUND');
    const bad = await h.call('POST', '/admin/tenants/demo/reset', { arquivos: true });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VAL_INVALID_PARAM');
  });

  it('needs the internal credential', async () => {
    const res = await fetch(`${h.sim.url}/admin/tenants/demo/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(401);
  });
});
