import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrangeCatalog, createTenant, startHarness, type Harness } from '../helpers.ts';

let h: Harness;
const base = '/tenants/demo';
beforeAll(async () => {
  h = await startHarness();
  await arrangeCatalog(await createTenant(h, 'demo'));
});
afterAll(() => h.close());

const names = (res: { body: any }) => res.body.data.map((x: { nome: string }) => x.nome);

describe('catalogs', () => {
  it('procedimentos: q is a case-insensitive name prefix, ativo defaults to 1', async () => {
    const res = await h.call('GET', `${base}/procedimentos?q=ultra`);
    expect(names(res)).toEqual(['Ultrassonografia de abdome total']);
    expect(res.body.data[0]).toEqual({
      id: 1,
      nome: 'Ultrassonografia de abdome total',
      abreviacao: 'USGABD',
      codigo_tuss: '40901122',
      descricao_tuss: 'US - Abdome total',
      requer_laudo: true,
      possui_imagens: true,
      ativo: true,
    });
    expect(names(await h.call('GET', `${base}/procedimentos?q=ultra&ativo=0`))).toEqual(['Ultrassonografia antiga']);
    expect((await h.call('GET', `${base}/procedimentos?q=abdome`)).body.meta.total).toBe(0);
    expect((await h.call('GET', `${base}/procedimentos?limit=1`)).body).toMatchObject({ meta: { total: 2 } });
  });

  it('convenios come with nested planos', async () => {
    const res = await h.call('GET', `${base}/convenios`);
    expect(res.body.meta.total).toBe(2);
    const uni = res.body.data.find((c: { nome: string }) => c.nome === 'Unimed');
    expect(uni).toEqual({
      id: 1,
      nome: 'Unimed',
      abreviacao: 'UNI',
      codigo_ans: '123456',
      ativo: true,
      planos: [{ id: 1, nome: 'Basico', codigo_ans: '111', ativo: true }],
    });
    expect(names(await h.call('GET', `${base}/convenios?q=brad`))).toEqual(['Bradesco Saude']);
  });

  it('medicos: papel is a union, q a name prefix, ativo default 1', async () => {
    expect(names(await h.call('GET', `${base}/medicos`))).toEqual(['Ana Souza', 'Bruno Lima', 'Carla Dias']);
    expect(names(await h.call('GET', `${base}/medicos?papel=LAUDO`))).toEqual(['Ana Souza']);
    expect(names(await h.call('GET', `${base}/medicos?papel=LAUDO&papel=SOLICITANTE`))).toEqual([
      'Ana Souza',
      'Carla Dias',
    ]);
    expect(names(await h.call('GET', `${base}/medicos?papel=LAUDO&ativo=0`))).toEqual(['Davi Inativo']);
    expect(names(await h.call('GET', `${base}/medicos?q=bru`))).toEqual(['Bruno Lima']);
    const item = (await h.call('GET', `${base}/medicos?q=ana`)).body.data[0];
    expect(item).toEqual({
      id: 1,
      nome: 'Ana Souza',
      saudacao: 'Dr.',
      conselho: { sigla: 'CRM', numero: '1003', uf: 'SP' },
      especialidade: '',
      papeis: ['EXAME', 'LAUDO'],
      ativo: true,
    });
  });

  it('medico detail masks cpf/rg and never exposes the password', async () => {
    const res = await h.call('GET', `${base}/medicos/1`);
    expect(res.status).toBe(200);
    expect(res.body.data.cpf).toBe('*********25');
    expect(res.body.data.rg).toBe('*******89');
    expect(JSON.stringify(res.body.data)).not.toMatch(/senha/);
    expect((await h.call('GET', `${base}/medicos/999`)).body.error.code).toBe('RES_NOT_FOUND');
  });

  it('cids: q required; matches code prefix (dot optional) or name contains', async () => {
    expect((await h.call('GET', `${base}/cids`)).status).toBe(400);
    expect((await h.call('GET', `${base}/cids?q=J459`)).body.data).toEqual([
      { id: 1, codigo: 'J45.9', nome: 'Asma nao especificada' },
    ]);
    expect((await h.call('GET', `${base}/cids?q=hipert`)).body.data.map((c: { codigo: string }) => c.codigo)).toEqual([
      'I10',
    ]);
  });

  it('unidades, complementos and grupos-laudos', async () => {
    expect((await h.call('GET', `${base}/unidades`)).body.data).toEqual([
      { id: 1, nome: 'Unidade Centro', abreviacao: 'CEN', cidade: 'Sao Paulo', uf: 'SP', ativo: true },
    ]);
    expect((await h.call('GET', `${base}/complementos`)).body.data).toEqual([
      { id: 1, nome: 'Com contraste', ativo: true },
    ]);
    expect((await h.call('GET', `${base}/grupos-laudos`)).body.data).toEqual([
      { id: 1, nome: 'Radiologia', ativo: true, medicos: [{ id: 1, nome: 'Ana Souza' }] },
    ]);
  });
});
