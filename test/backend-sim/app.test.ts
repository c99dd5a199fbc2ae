import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { arrangeCatalog, createTenant, startHarness, TOKEN, type Harness } from './helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await arrangeCatalog(await createTenant(h, 'demo'));
});
afterAll(() => h.close());

describe('internal credential', () => {
  it('refuses a missing token with 401 INTERNAL_AUTH_FAILED', async () => {
    const res = await fetch(`${h.sim.url}/admin/tenants`);
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('INTERNAL_AUTH_FAILED');
  });

  it('refuses a wrong token on tenant routes too', async () => {
    const res = await h.call('GET', '/tenants/demo/pacientes', undefined, { 'x-internal-token': `${TOKEN}x` });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INTERNAL_AUTH_FAILED');
  });

  it('accepts the right token', async () => {
    expect((await h.call('GET', '/tenants/demo/pacientes')).status).toBe(200);
  });

  it('listens on loopback only', () => {
    expect(h.sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});

describe('admin tenants and settings', () => {
  it('creates tenants idempotently and lists them', async () => {
    const first = await h.call('POST', '/admin/tenants', { slug: 'outra', nome: 'Outra' });
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({ slug: 'outra', nome: 'Outra', created: true });
    const again = await h.call('POST', '/admin/tenants', { slug: 'outra', nome: 'Outra Clinica' });
    expect(again.status).toBe(200);
    expect(again.body.data.created).toBe(false);
    const list = await h.call('GET', '/admin/tenants');
    expect(list.body.data.map((t: { slug: string }) => t.slug)).toEqual(expect.arrayContaining(['demo', 'outra']));
    expect(list.body.data.find((t: { slug: string }) => t.slug === 'outra').nome).toBe('Outra Clinica');
  });

  it('rejects an invalid slug', async () => {
    const res = await h.call('POST', '/admin/tenants', { slug: '../x' });
    expect(res.status).toBe(400);
  });

  it('unknown tenant gives 404 TENANT_NOT_FOUND', async () => {
    const res = await h.call('GET', '/tenants/nao-existe/pacientes');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('TENANT_NOT_FOUND');
  });

  it('a database that cannot be opened gives 500 TENANT_OPEN_FAILED', async () => {
    writeFileSync(
      join(h.dataDir, 'backend', 'quebrada.db'),
      'this is not a sqlite file at all, just text padding '.repeat(200),
    );
    const res = await h.call('GET', '/tenants/quebrada/pacientes');
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('TENANT_OPEN_FAILED');
  });

  it('reads and patches settings', async () => {
    const before = await h.call('GET', '/tenants/demo/settings');
    expect(before.body.data.cpf_obrigatorio).toBe(false);
    const after = await h.call('PATCH', '/tenants/demo/settings', {
      cpf_obrigatorio: true,
      defaults: { unidade_id: 1, medico_laudo_id: 1 },
    });
    expect(after.status).toBe(200);
    expect(after.body.data.cpf_obrigatorio).toBe(true);
    expect(after.body.data.defaults).toEqual({
      unidade_id: 1,
      medico_exame_id: null,
      medico_laudo_id: 1,
      convenio_id: null,
    });
    expect((await h.call('GET', '/tenants/demo/settings')).body.data.defaults.medico_laudo_id).toBe(1);
    await h.call('PATCH', '/tenants/demo/settings', {
      cpf_obrigatorio: false,
      defaults: { unidade_id: null, medico_laudo_id: null },
    });
  });

  it('settings defaults must reference usable rows', async () => {
    const unidade = await h.call('PATCH', '/tenants/demo/settings', { defaults: { unidade_id: 99 } });
    expect(unidade.status).toBe(422);
    expect(unidade.body.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'defaults.unidade_id' } });
    // Doctor 2 performs exams but does not report them.
    const laudo = await h.call('PATCH', '/tenants/demo/settings', { defaults: { medico_laudo_id: 2 } });
    expect(laudo.body.error).toMatchObject({
      code: 'INVALID_REFERENCE',
      details: { field: 'defaults.medico_laudo_id' },
    });
    expect((await h.call('PATCH', '/tenants/demo/settings', { defaults: { medico_exame_id: 2 } })).status).toBe(200);
  });

  it('unknown routes give 404 ROUTE_NOT_FOUND', async () => {
    const res = await h.call('GET', '/tenants/demo/nada');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('ROUTE_NOT_FOUND');
  });
});
