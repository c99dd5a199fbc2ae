import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDatabase } from '../../../backend-sim/db/database.ts';
import { verifyPassword } from '../../../backend-sim/lib/password.ts';
import { arrangeCatalog, createTenant, startHarness, type Harness } from '../helpers.ts';

let h: Harness;
let t: TenantDatabase;
const base = '/tenants/demo/medicos';
beforeAll(async () => {
  h = await startHarness();
  t = await createTenant(h, 'demo');
  await arrangeCatalog(t);
});
afterAll(() => h.close());

describe('POST /medicos', () => {
  it('creates a doctor resolving saudacao/grupo text and city by name, password hashed', async () => {
    const res = await h.call('POST', base, {
      nome: 'Elisa Prado',
      usuario: 'elisa',
      senha: 'pw-123',
      saudacao: 'dra.',
      grupo_permissao: 'Medicos',
      cpf: '11144477735',
      conselho: { sigla: 'CRM', numero: '123456', uf: 'sp' },
      papeis: ['LAUDO', 'EXAME'],
      endereco: { cidade: 'campinas', estado: 'SP', logradouro: 'Av. X' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      nome: 'Elisa Prado',
      saudacao: 'Dra.',
      saudacao_id: 2,
      grupo_permissao_id: 1,
      cpf: '*********35',
      usuario: 'elisa',
      conselho: { tipo: 'CRM', numero: '123456', uf: 'SP' },
      papeis: ['EXAME', 'LAUDO'],
      endereco: { cidade: 'Campinas', estado: 'SP', logradouro: 'Av. X' },
      ativo: true,
    });
    const row = await t.db
      .selectFrom('medicos')
      .select('senha_hash')
      .where('id', '=', res.body.data.id)
      .executeTakeFirstOrThrow();
    expect(await verifyPassword('pw-123', row.senha_hash)).toBe(true);
  });

  it('usuario and senha are required; usuario unique case-insensitively', async () => {
    const semSenha = await h.call('POST', base, { nome: 'X', usuario: 'x1' });
    expect(semSenha.status).toBe(422);
    expect(semSenha.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'senha' } });
    const dup = await h.call('POST', base, { nome: 'Outra Ana', usuario: 'ANA', senha: 'x' });
    expect(dup.status).toBe(422);
    expect(dup.body.error.code).toBe('USUARIO_ALREADY_EXISTS');
  });

  it('unknown references are INVALID_REFERENCE', async () => {
    const s = await h.call('POST', base, { nome: 'Y', usuario: 'y1', senha: 'x', saudacao: 'Excelentissimo' });
    expect(s.body.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'saudacao' } });
    const g = await h.call('POST', base, { nome: 'Y', usuario: 'y1', senha: 'x', grupo_permissao_id: 99 });
    expect(g.body.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'grupo_permissao_id' } });
    const c = await h.call('POST', base, {
      nome: 'Y',
      usuario: 'y1',
      senha: 'x',
      endereco: { cidade: 'Campinas', estado: 'RJ' },
    });
    expect(c.body.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'endereco.cidade' } });
  });
});

describe('PATCH /medicos/:id', () => {
  it('replaces papeis, conselho and endereco whole; keeps the rest', async () => {
    const created = (
      await h.call('POST', base, {
        nome: 'Fabio',
        usuario: 'fabio',
        senha: 'x',
        papeis: ['EXAME', 'LAUDO'],
        conselho: { sigla: 'CRM', numero: '1', uf: 'SP' },
        endereco: { cidade: 'Campinas', logradouro: 'Rua 1' },
        telefone: '1130000000',
      })
    ).body.data;
    const res = await h.call('PATCH', `${base}/${created.id}`, {
      papeis: ['SOLICITANTE'],
      conselho: { numero: '2' },
      endereco: { bairro: 'Centro' },
      usuario: 'FABIO',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      papeis: ['SOLICITANTE'],
      conselho: { tipo: '', numero: '2', uf: '' },
      endereco: { cidade: '', logradouro: '', bairro: 'Centro' },
      telefone: '1130000000',
      usuario: 'FABIO',
    });
    expect((await h.call('PATCH', `${base}/${created.id}`, { usuario: 'ana' })).body.error.code).toBe(
      'USUARIO_ALREADY_EXISTS',
    );
    expect((await h.call('PATCH', `${base}/999`, { nome: 'x' })).status).toBe(404);
  });
});
