import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDatabase } from '../../../backend-sim/db/database.ts';
import { SEED_SAMPLES } from '../../../backend-sim/seed-samples.ts';
import { createS3Client } from '../../../shared-node/s3-client.ts';
import { arrangeCatalog, createTenant, derivedMismatches, startHarness, type Harness } from '../helpers.ts';

let h: Harness;
let t: TenantDatabase;
const base = '/tenants/demo/exames';
const PDF = Buffer.from('%PDF-1.4 exame de teste').toString('base64');
const LAUDO_PDF = Buffer.from('%PDF-1.4 laudo assinado').toString('base64');

async function readObject(key: string): Promise<Buffer> {
  const client = createS3Client({ ...h.s3Config!, region: 'us-east-1' });
  const stream = await client.getObject(h.s3Config!.bucket, key);
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  h = await startHarness({ s3: true, now: () => new Date('2026-11-02T09:00:00Z') });
  t = await createTenant(h, 'demo');
  await arrangeCatalog(t);
  await t.db
    .insertInto('pacientes')
    .values(
      [1, 2].map((i) => ({
        nome: `PACIENTE ${i}`,
        numero_prontuario: String(i),
        usuario: `p${i}`,
        senha_hash: 'x',
        criado_em: '2026-01-01T00:00:00Z',
        data_nascimento: '1980-01-01',
      })),
    )
    .execute();
});
afterAll(() => h.close());

const exame = (extra: Record<string, unknown> = {}) => ({
  paciente_id: 1,
  procedimento_id: 1,
  unidade_id: 1,
  medico_exame_id: 2,
  ...extra,
});

describe('POST /exames', () => {
  it('stores files in S3, attaches a signed report and derives ASSINADO', async () => {
    const res = await h.call(
      'POST',
      base,
      exame({
        medico_laudo_id: 1,
        medico_solicitante_id: 3,
        prioridade: 2,
        arquivos: {
          exames: [{ nome: 'img.pdf', base64: PDF }],
          laudos: [{ nome: 'laudo.pdf', base64: `data:application/pdf;base64,${LAUDO_PDF}` }],
        },
      }),
      { 'x-chave-id': '9' },
    );
    expect(res.status).toBe(201);
    const e = res.body.data;
    expect(e).toMatchObject({
      paciente: { id: 1, nome: 'PACIENTE 1' },
      medico_exame: { id: 2, nome: 'Bruno Lima' },
      medico_laudo: { id: 1, nome: 'Ana Souza' },
      solicitante: { id: 3, nome: 'Carla Dias' },
      tipo_exame: { id: 1, nome: 'Ultrassonografia de abdome total' },
      data_realizado: '2026-11-02',
      status_laudo: 'ASSINADO',
      tem_arquivo_exame: true,
      tem_arquivo_laudo: true,
      url_arquivo_exame: `/v1/exames/${e.id}/arquivo?tipo=exame`,
      requer_laudo: true,
      prioridade: 2,
    });
    expect(e).not.toHaveProperty('hora_realizado');
    const loc = await h.call('GET', `${base}/${e.id}/arquivo?tipo=laudo`);
    expect(loc.status).toBe(200);
    expect(loc.body.data).toEqual({
      bucket: 'clinic-files',
      object_key: expect.stringMatching(/^demo\/exames\/.+\.pdf$/),
    });
    expect((await readObject(loc.body.data.object_key)).toString()).toBe('%PDF-1.4 laudo assinado');
    const detail = (await h.call('GET', `${base}/${e.id}`)).body.data;
    expect(detail).toMatchObject({ hora_realizado: '09:00:00', laudo_assinado_em: '2026-11-02T09:00:00Z' });
    const row = await t.db.selectFrom('exames').selectAll().where('id', '=', e.id).executeTakeFirstOrThrow();
    expect(row.criado_por_chave_id).toBe(9);
  });

  it('references are checked: missing patient, reporting doctor without the LAUDO role', async () => {
    const p = await h.call('POST', base, exame({ paciente_id: 999 }));
    expect(p.status).toBe(422);
    expect(p.body.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'paciente_id' } });
    const m = await h.call('POST', base, exame({ medico_laudo_id: 2 }));
    expect(m.body.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'medico_laudo_id' } });
    const plano = await h.call('POST', base, exame({ convenio_id: 1, plano_id: 2 }));
    expect(plano.body.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'plano_id' } });
  });

  it('clinic rules: mandatory reporting doctor, one report only, report needs its doctor, allowed file types', async () => {
    await h.call('PATCH', '/tenants/demo/settings', { medico_laudo_obrigatorio: true });
    try {
      const r = await h.call('POST', base, exame());
      expect(r.status).toBe(422);
      expect(r.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'medico_laudo_id' } });
      expect((await h.call('POST', base, exame({ grupos_laudos_id: 1 }))).status).toBe(201);
    } finally {
      await h.call('PATCH', '/tenants/demo/settings', { medico_laudo_obrigatorio: false });
    }
    const two = await h.call(
      'POST',
      base,
      exame({
        medico_laudo_id: 1,
        arquivos: {
          laudos: [
            { nome: 'a.pdf', base64: PDF },
            { nome: 'b.pdf', base64: PDF },
          ],
        },
      }),
    );
    expect(two.body.error.code).toBe('REPORT_ALREADY_EXISTS');
    const semMedico = await h.call('POST', base, exame({ arquivos: { laudos: [{ nome: 'a.pdf', base64: PDF }] } }));
    expect(semMedico.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'medico_laudo_id' } });
    const png = await h.call(
      'POST',
      base,
      exame({ medico_laudo_id: 1, arquivos: { laudos: [{ nome: 'a.png', base64: PDF }] } }),
    );
    expect(png.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'arquivos.laudos[0].nome' } });
  });
});

describe('GET /exames', () => {
  it("derives status_laudo and filters on it; SIMPLES doctor filter hides other doctors' exams", async () => {
    const pend = (await h.call('POST', base, exame({ paciente_id: 2, medico_exame_id: 1, medico_laudo_id: null }))).body
      .data;
    const emit = (await h.call('POST', base, exame({ paciente_id: 2, medico_exame_id: 2, medico_laudo_id: 1 }))).body
      .data;
    // EMITIDO: report file present, no signed report.
    await t.db.updateTable('exames').set({ arquivo_laudo_key: 'demo/x.pdf' }).where('id', '=', emit.id).execute();
    const list = await h.call('GET', `${base}?paciente_id=2`);
    const status = Object.fromEntries(
      list.body.data.map((e: { id: number; status_laudo: string }) => [e.id, e.status_laudo]),
    );
    expect(status).toEqual({ [pend.id]: 'PENDENTE', [emit.id]: 'EMITIDO' });
    expect(
      (await h.call('GET', `${base}?paciente_id=2&status_laudo=EMITIDO`)).body.data.map((e: { id: number }) => e.id),
    ).toEqual([emit.id]);

    // Doctor 3 (requester only) sees nothing of patient 2; doctor 1 sees both (exam doctor of one, report doctor of the other).
    const asDoctor = (id: number, q = '') =>
      h.call('GET', `${base}?paciente_id=2${q}`, undefined, { 'x-medico-filtro-id': String(id) });
    expect((await asDoctor(3)).body.meta.total).toBe(0);
    expect((await asDoctor(1)).body.meta.total).toBe(2);
    // Doctor 2 sees only the exam it performed, and medico_id cannot widen that.
    expect((await asDoctor(2, '&medico_id=1')).body.data.map((e: { id: number }) => e.id)).toEqual([emit.id]);
    expect((await h.call('GET', `${base}/${pend.id}`, undefined, { 'x-medico-filtro-id': '2' })).status).toBe(404);
    expect(
      (await h.call('GET', `${base}/${pend.id}/arquivo?tipo=exame`, undefined, { 'x-medico-filtro-id': '2' })).body
        .error.code,
    ).toBe('RES_NOT_FOUND');
    expect((await h.call('GET', `${base}/${pend.id}/arquivo?tipo=exame`)).body.error.code).toBe(
      'RES_ARQUIVO_NAO_DISPONIVEL',
    );
    const period = await h.call('GET', `${base}?periodo_realizado_inicio=2026-11-03`);
    expect(period.body.meta.total).toBe(0);
  });

  it('locating a seeded sample uploads it on first use', async () => {
    const { id } = await t.db
      .insertInto('exames')
      .values({
        paciente_id: 1,
        procedimento_id: 1,
        data_realizado: '2026-10-01',
        arquivo_exame_key: 'seed-samples/exame.pdf',
        criado_em: '2026-10-01T10:00:00Z',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const loc = await h.call('GET', `${base}/${id}/arquivo?tipo=exame`);
    expect(loc.body.data.object_key).toBe('seed-samples/exame.pdf');
    expect((await readObject('seed-samples/exame.pdf')).equals(SEED_SAMPLES['seed-samples/exame.pdf'])).toBe(true);
  });
});

describe('DELETE /exames/:id', () => {
  it('soft-deletes with cascade to reports, then the exam is gone', async () => {
    const e = (
      await h.call(
        'POST',
        base,
        exame({ medico_laudo_id: 1, arquivos: { laudos: [{ nome: 'l.pdf', base64: LAUDO_PDF }] } }),
      )
    ).body.data;
    const res = await h.call(
      'DELETE',
      `${base}/${e.id}`,
      { motivo: 'Exame lancado em duplicidade' },
      { 'x-chave-id': '4' },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: e.id,
      status: 'EXCLUIDO',
      excluido_em: '2026-11-02T09:00:00Z',
      motivo: 'Exame lancado em duplicidade',
      laudos_excluidos: 1,
    });
    const laudo = await t.db.selectFrom('laudos').selectAll().where('exame_id', '=', e.id).executeTakeFirstOrThrow();
    expect(laudo).toMatchObject({ excluido_motivo: 'Exame lancado em duplicidade', excluido_por_chave_id: 4 });
    expect((await h.call('GET', `${base}/${e.id}`)).status).toBe(404);
    expect((await h.call('GET', `/tenants/demo/laudos?exame_id=${e.id}`)).body.meta.total).toBe(0);
    const again = await h.call('DELETE', `${base}/${e.id}`, { motivo: 'de novo' });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('NOT_FOUND');
    expect((await h.call('DELETE', `${base}/999999`, { motivo: 'nao existe' })).body.error.code).toBe('NOT_FOUND');
  });

  it('an exported exam is deleted when the center answers, refused with 502 BACKEND_CENTRAL_SYNC when it does not', async () => {
    const a = (await h.call('POST', base, exame())).body.data;
    const b = (await h.call('POST', base, exame())).body.data;
    await t.db.updateTable('exames').set({ exportado_central: 1 }).where('id', 'in', [a.id, b.id]).execute();
    expect((await h.call('DELETE', `${base}/${a.id}`, { motivo: 'exportado' })).status).toBe(200);
    await h.call('PATCH', '/tenants/demo/settings', { central_laudos_disponivel: false });
    try {
      const res = await h.call('DELETE', `${base}/${b.id}`, { motivo: 'exportado' });
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('BACKEND_CENTRAL_SYNC');
      expect((await h.call('GET', `${base}/${b.id}`)).status).toBe(200);
    } finally {
      await h.call('PATCH', '/tenants/demo/settings', { central_laudos_disponivel: true });
    }
  });

  it('refuses with 409 EXAME_LAUDO_CENTRAL when the external center issued the report', async () => {
    const e = (await h.call('POST', base, exame())).body.data;
    await t.db.updateTable('exames').set({ laudo_central: 1 }).where('id', '=', e.id).execute();
    const res = await h.call('DELETE', `${base}/${e.id}`, { motivo: 'tentativa' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('EXAME_LAUDO_CENTRAL');
    expect((await h.call('GET', `${base}/${e.id}`)).status).toBe(200);
  });
});

describe('list counts and search index after these flows', () => {
  it('agree with the rows (creates with reports, ingests, deletes with their cascade)', () => {
    expect(derivedMismatches(t.sqlite)).toEqual([]);
  });
});
