import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDatabase } from '../../../backend-sim/db/database.ts';
import { arrangeCatalog, createTenant, derivedMismatches, startHarness, type Harness } from '../helpers.ts';

let h: Harness;
let t: TenantDatabase;
const PDF = Buffer.from('%PDF-1.4 laudo').toString('base64');
const ingest = (exameId: number, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  h.call(
    'POST',
    `/tenants/demo/exames/${exameId}/laudo`,
    { medico_laudo_id: 1, arquivo: { nome: 'laudo.pdf', base64: PDF }, ...extra },
    headers,
  );

async function novoExame(
  medicos: { medico_exame_id?: number; medico_laudo_id?: number | null; medico_solicitante_id?: number } = {},
) {
  const { id } = await t.db
    .insertInto('exames')
    .values({
      paciente_id: 1,
      procedimento_id: 2,
      data_realizado: '2026-10-20',
      medico_exame_id: 2,
      criado_em: '2026-10-20T10:00:00Z',
      ...medicos,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

beforeAll(async () => {
  h = await startHarness({ s3: true, now: () => new Date('2026-11-02T09:00:00Z') });
  t = await createTenant(h, 'demo');
  await arrangeCatalog(t);
  await t.db
    .insertInto('pacientes')
    .values({
      nome: 'PACIENTE 1',
      numero_prontuario: '1',
      usuario: 'p1',
      senha_hash: 'x',
      criado_em: '2026-01-01T00:00:00Z',
    })
    .execute();
});
afterAll(() => h.close());

describe('POST /exames/:id/laudo', () => {
  it('stores a signed report, never overwritten', async () => {
    const exameId = await novoExame({ medico_laudo_id: null });
    const res = await ingest(exameId, { referencia: 'ACC-1', cid_id: 2 }, { 'x-chave-id': '3' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      exame: { id: exameId, paciente: { id: 1, nome: 'PACIENTE 1' }, tipo_exame: { id: 2, nome: 'Eletrocardiograma' } },
      medico_laudo: { id: 1, nome: 'Ana Souza' },
      data_laudo: '2026-11-02',
      hora_laudo: '09:00:00',
      assinado: true,
      assinado_em: '2026-11-02T09:00:00Z',
      tem_arquivo: true,
      assinatura: { tipo: 'ICP-Brasil', hash: null, validacao_url: null },
      url_arquivo: `/v1/laudos/${res.body.data.id}/arquivo`,
    });
    const exame = (await h.call('GET', `/tenants/demo/exames/${exameId}`)).body.data;
    expect(exame).toMatchObject({ status_laudo: 'ASSINADO', tem_arquivo_laudo: true, medico_laudo: { id: 1 } });
    const again = await ingest(exameId);
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('REPORT_ALREADY_EXISTS');
    const loc = await h.call('GET', `/tenants/demo/laudos/${res.body.data.id}/arquivo`);
    expect(loc.body.data.object_key).toMatch(/^demo\/laudos\//);
    const detail = await h.call('GET', `/tenants/demo/laudos/${res.body.data.id}`);
    expect(detail.body.data.assinatura).toEqual({ tipo: 'ICP-Brasil' });
  });

  it('rejects a doctor without the LAUDO role, a missing exam, a non-PDF file', async () => {
    const exameId = await novoExame();
    const semPapel = await ingest(exameId, { medico_laudo_id: 2 });
    expect(semPapel.status).toBe(422);
    expect(semPapel.body.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'medico_laudo_id' } });
    expect((await ingest(exameId, { medico_laudo_id: 4 })).body.error.code).toBe('INVALID_REFERENCE'); // inactive
    expect((await ingest(999999)).status).toBe(404);
    expect((await ingest(exameId, { arquivo: { nome: 'x.png', base64: PDF } })).body.error.code).toBe(
      'VALIDATION_ERROR',
    );
    expect((await ingest(exameId)).status).toBe(201);
  });
});

describe('GET /laudos', () => {
  it('lists orphans with exame null and refuses their file; AMPLIADO visibility', async () => {
    const { id: orfao } = await t.db
      .insertInto('laudos')
      .values({
        exame_id: null,
        medico_laudo_id: 1,
        data_laudo: '2026-10-01',
        assinado: 1,
        assinado_em: '2026-10-01T10:00:00Z',
        arquivo_key: 'demo/orfao.pdf',
        criado_em: '2026-10-01T10:00:00Z',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const item = (await h.call('GET', '/tenants/demo/laudos?periodo_laudo_fim=2026-10-01')).body.data;
    expect(item).toEqual([expect.objectContaining({ id: orfao, exame: null, assinado: true, tem_arquivo: false })]);
    expect((await h.call('GET', `/tenants/demo/laudos/${orfao}/arquivo`)).body.error.code).toBe(
      'RES_ARQUIVO_NAO_DISPONIVEL',
    );

    // Report by doctor 1 on an exam where doctor 3 requested it: visible to 1 (report doctor) and 3 (SIMPLES on the exam), not to 2.
    const exameId = await novoExame({ medico_exame_id: 1, medico_solicitante_id: 3 });
    await t.db.updateTable('exames').set({ medico_exame_id: null }).where('id', '=', exameId).execute();
    const laudo = (await ingest(exameId)).body.data;
    const ids = async (medico: number) =>
      (
        await h.call('GET', `/tenants/demo/laudos?exame_id=${exameId}&medico_laudo_id=2`, undefined, {
          'x-medico-filtro-id': String(medico),
        })
      ).body.data.map((l: { id: number }) => l.id);
    expect(await ids(1)).toEqual([laudo.id]);
    expect(await ids(3)).toEqual([laudo.id]);
    expect(await ids(2)).toEqual([]);
    expect(
      (await h.call('GET', `/tenants/demo/laudos/${laudo.id}`, undefined, { 'x-medico-filtro-id': '2' })).status,
    ).toBe(404);
    // Unbound: medico_laudo_id filters.
    expect((await h.call('GET', `/tenants/demo/laudos?exame_id=${exameId}&medico_laudo_id=2`)).body.meta.total).toBe(0);
    expect((await h.call('GET', '/tenants/demo/laudos?assinado=0')).body.meta.total).toBe(0);
  });
});

describe('list counts and search index after these flows', () => {
  it('agree with the rows (creates with reports, ingests, deletes with their cascade)', () => {
    expect(derivedMismatches(t.sqlite)).toEqual([]);
  });
});
