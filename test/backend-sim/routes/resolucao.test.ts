import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDatabase } from '../../../backend-sim/db/database.ts';
import { arrangeCatalog, createTenant, startHarness, type Harness } from '../helpers.ts';

// backend-sim's exact-match lookups behind the aliases of POST /v1/exames (spec 02: "exact-equality
// match after normalization"; spec 01 § Limits: alias candidates max 10). The rules built on them
// (precedence, conflicts, severity) are the gateway's: test/server/routes/v1/exames-create.test.ts.

let h: Harness;
let t: TenantDatabase;
const base = '/tenants/demo/resolucao';
const ids = (res: { body: any }) => res.body.data.map((r: any) => r.id);

beforeAll(async () => {
  h = await startHarness();
  t = await createTenant(h, 'demo');
  await arrangeCatalog(t);
  await t.db
    .insertInto('pacientes')
    .values({
      nome: 'PACIENTE CPF',
      numero_prontuario: '1',
      usuario: 'p1',
      senha_hash: 'x',
      cpf: '11144477735',
      criado_em: '2026-01-01T00:00:00Z',
    })
    .execute();
  await t.db
    .insertInto('procedimentos')
    .values(
      Array.from({ length: 12 }, (_, i) => ({ nome: `Doppler ${i}`, abreviacao: 'DOP', codigo_tuss: '40901475' })),
    )
    .execute();
  await t.db
    .insertInto('unidades')
    .values([
      { nome: 'Unidade São José', ativo: 1 },
      { nome: 'Unidade Sao Jose', ativo: 1 },
      { nome: 'Unidade Fechada', ativo: 0 },
    ])
    .execute();
  await t.db.insertInto('convenios').values({ nome: 'Saúde  Total', codigo_ans: '000123' }).execute();
  await t.db
    .insertInto('medicos')
    .values([
      {
        nome: 'Rita RJ',
        usuario: 'rita',
        senha_hash: 'x',
        conselho_sigla: 'CRM',
        conselho_numero: '001004',
        conselho_uf: 'RJ',
        papel_exame: 1,
        criado_em: '2026-01-01T00:00:00Z',
      },
      {
        nome: 'Dentista',
        usuario: 'dent',
        senha_hash: 'x',
        conselho_sigla: 'CRO',
        conselho_numero: '1004',
        conselho_uf: 'SP',
        papel_exame: 1,
        criado_em: '2026-01-01T00:00:00Z',
      },
    ])
    .execute();
});
afterAll(() => h.close());

describe('GET /tenants/:slug/resolucao/*', () => {
  it('pacientes by CPF: exact, {id, nome}, meta.total', async () => {
    const res = await h.call('GET', `${base}/pacientes?cpf=11144477735`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [{ id: 1, nome: 'PACIENTE CPF' }], meta: { total: 1 } });
    expect((await h.call('GET', `${base}/pacientes?cpf=52998224725`)).body).toEqual({ data: [], meta: { total: 0 } });
  });

  it('procedimentos by TUSS code or abbreviation (case and blanks ignored), active only, at most 10 with the full total', async () => {
    // arrangeCatalog: 1 USGABD 40901122 (active), 3 USOLD '' (inactive).
    expect(ids(await h.call('GET', `${base}/procedimentos?codigo_tuss=40901122`))).toEqual([1]);
    expect(ids(await h.call('GET', `${base}/procedimentos?abreviacao=%20usgabd%20`))).toEqual([1]);
    expect((await h.call('GET', `${base}/procedimentos?abreviacao=USOLD`)).body.meta.total).toBe(0);
    const many = await h.call('GET', `${base}/procedimentos?codigo_tuss=40901475`);
    expect(many.body.data).toHaveLength(10);
    expect(many.body.meta.total).toBe(12);
    expect(many.body.data[0]).toEqual({ id: 4, nome: 'Doppler 0' });
  });

  it('convenios by ANS code (an empty code never matches) or by name (case, accents and blanks ignored)', async () => {
    expect(ids(await h.call('GET', `${base}/convenios?codigo_ans=123456`))).toEqual([1]);
    expect(ids(await h.call('GET', `${base}/convenios?nome=saude%20total`))).toEqual([3]);
    expect(ids(await h.call('GET', `${base}/convenios?nome=BRADESCO%20SAUDE`))).toEqual([2]);
    expect((await h.call('GET', `${base}/convenios?codigo_ans=`)).status).toBe(400);
  });

  it('medicos by CRM: role required, active only, leading zeros ignored, state only when given, CRM council only', async () => {
    // arrangeCatalog doctors: CRM 1003 SP (ana, e+l), 1005 SP (bruno, e), 1005 SP (carla, s), 1004 SP (davi, l, inactive).
    expect(ids(await h.call('GET', `${base}/medicos?crm=1003&papel=EXAME`))).toEqual([1]);
    expect(ids(await h.call('GET', `${base}/medicos?crm=1003&papel=LAUDO`))).toEqual([1]);
    expect(ids(await h.call('GET', `${base}/medicos?crm=1005&papel=EXAME`))).toEqual([2]);
    expect(ids(await h.call('GET', `${base}/medicos?crm=1005&papel=SOLICITANTE`))).toEqual([3]);
    expect(ids(await h.call('GET', `${base}/medicos?crm=1004&papel=LAUDO`))).toEqual([]);
    expect(ids(await h.call('GET', `${base}/medicos?crm=1004&papel=EXAME`))).toEqual([5]);
    expect(ids(await h.call('GET', `${base}/medicos?crm=01004&papel=EXAME&uf=RJ`))).toEqual([5]);
    expect(ids(await h.call('GET', `${base}/medicos?crm=1004&papel=EXAME&uf=SP`))).toEqual([]);
    expect((await h.call('GET', `${base}/medicos?crm=1004`)).status).toBe(400);
  });

  it('unidades by name: accents and case ignored, active only', async () => {
    expect(ids(await h.call('GET', `${base}/unidades?nome=unidade%20sao%20jose`))).toEqual([2, 3]);
    expect(ids(await h.call('GET', `${base}/unidades?nome=Unidade%20Fechada`))).toEqual([]);
  });

  it('no doctor filter: a bound key context changes nothing', async () => {
    const res = await h.call('GET', `${base}/procedimentos?codigo_tuss=40901122`, undefined, {
      'x-medico-filtro-id': '2',
    });
    expect(ids(res)).toEqual([1]);
  });
});
