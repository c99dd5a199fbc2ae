import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDatabase } from '../../../backend-sim/db/database.ts';
import { arrangeCatalog, createTenant, startHarness, type Harness } from '../helpers.ts';

let h: Harness;
let t: TenantDatabase;
const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]).toString('base64');

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
      })),
    )
    .execute();
});
afterAll(() => h.close());

describe('patient records', () => {
  it('creates a record with attachments in S3, lists records and attachment metadata, locates a file', async () => {
    const res = await h.call(
      'POST',
      '/tenants/demo/pacientes/1/prontuarios',
      {
        mensagem: '<p>Retorno</p>',
        anexos: [
          { nome: 'foto.PNG', base64: png, descricao: 'Foto da lesao' },
          { nome: 'pedido.pdf', base64: 'JVBERi0=' },
        ],
        exibir: 0,
      },
      { 'x-medico-filtro-id': '1' },
    );
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      prontuario_id: expect.any(Number),
      anexos: [
        { id: expect.any(Number), descricao: 'Foto da lesao', extensao: 'PNG', tamanho: 11 },
        { id: expect.any(Number), descricao: 'pedido.pdf', extensao: 'PDF', tamanho: 5 },
      ],
    });
    const list = await h.call('GET', '/tenants/demo/pacientes/1/prontuarios');
    expect(list.body).toEqual({
      data: [
        {
          id: res.body.data.prontuario_id,
          data_emissao: '2026-11-02T09:00:00Z',
          mensagem: '<p>Retorno</p>',
          exibir: false,
          rascunho: false,
          medico: { id: 1, nome: 'Ana Souza' },
        },
      ],
      meta: { total: 1 },
    });
    const anexos = await h.call('GET', '/tenants/demo/pacientes/1/prontuarios/anexos');
    expect(anexos.body.meta.total).toBe(2);
    expect(JSON.stringify(anexos.body)).not.toMatch(/object_key|demo\//);
    const anexoId = res.body.data.anexos[0].id;
    const loc = await h.call('GET', `/tenants/demo/pacientes/1/prontuarios/anexos/${anexoId}/url`);
    expect(loc.body.data).toEqual({
      bucket: 'clinic-files',
      object_key: expect.stringMatching(/^demo\/prontuarios\/.+\.png$/),
    });
    // Another patient's attachment is indistinguishable from a missing one.
    expect((await h.call('GET', `/tenants/demo/pacientes/2/prontuarios/anexos/${anexoId}/url`)).body.error.code).toBe(
      'RES_NOT_FOUND',
    );
  });

  it('needs a message longer than 3 chars or an attachment; attachment types are checked; patient must exist', async () => {
    const vazio = await h.call('POST', '/tenants/demo/pacientes/2/prontuarios', { mensagem: 'ok' });
    expect(vazio.status).toBe(422);
    expect(vazio.body.error.code).toBe('VALIDATION_ERROR');
    const tipo = await h.call('POST', '/tenants/demo/pacientes/2/prontuarios', {
      anexos: [{ nome: 'virus.exe', base64: png }],
    });
    expect(tipo.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'anexos[0].nome' } });
    expect(
      (await h.call('POST', '/tenants/demo/pacientes/999/prontuarios', { mensagem: 'mensagem valida' })).status,
    ).toBe(404);
    expect((await h.call('GET', '/tenants/demo/pacientes/999/prontuarios')).status).toBe(404);
    // The content must be what the extension says (spec: VALIDATION_ERROR, "invalid attachment").
    const disfarce = await h.call('POST', '/tenants/demo/pacientes/2/prontuarios', {
      anexos: [{ nome: 'laudo.pdf', base64: png }],
    });
    expect(disfarce.status).toBe(422);
    expect(disfarce.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Anexo invalido: o conteudo nao e um arquivo PDF.',
      details: { field: 'anexos.0.base64' },
    });
    const jpg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]).toString('base64');
    expect(
      (
        await h.call('POST', '/tenants/demo/pacientes/2/prontuarios', {
          anexos: [{ nome: 'foto.jpg', base64: `data:image/jpeg;base64,${jpg}` }],
        })
      ).status,
    ).toBe(201);
    const ok = await h.call('POST', '/tenants/demo/pacientes/2/prontuarios', { mensagem: 'mensagem valida' });
    expect(ok.status).toBe(201);
    expect(ok.body.data.anexos).toEqual([]);
  });

  it('drafts (rascunho = 1, written in the clinic system) are not listed; an attachment without a stored file locates to null', async () => {
    await t.db
      .insertInto('prontuarios')
      .values({
        paciente_id: 2,
        data_emissao: '2026-10-01T10:00:00Z',
        mensagem: '<p>rascunho</p>',
        rascunho: 1,
        criado_em: '2026-10-01T10:00:00Z',
      })
      .execute();
    const list = await h.call('GET', '/tenants/demo/pacientes/2/prontuarios');
    expect(list.body.data.map((r: { mensagem: string }) => r.mensagem)).not.toContain('<p>rascunho</p>');
    expect(list.body.data.every((r: { rascunho: boolean }) => r.rascunho === false)).toBe(true);
    expect(list.body.meta.total).toBe(list.body.data.length);
    const { id } = await t.db
      .insertInto('prontuario_anexos')
      .values({
        paciente_id: 2,
        descricao: 'Sem arquivo',
        nome_arquivo: 'x.pdf',
        extensao: 'PDF',
        tamanho: 0,
        object_key: '',
        criado_em: '2026-10-01T10:00:00Z',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const loc = await h.call('GET', `/tenants/demo/pacientes/2/prontuarios/anexos/${id}/url`);
    expect(loc).toEqual({ status: 200, body: { data: null, meta: {} } });
  });
});
