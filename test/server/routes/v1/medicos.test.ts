import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../../helpers/stack.ts';
import { makeCpf, TenantFixtures } from '../../../helpers/fixtures.ts';

// Spec: 02 § Catalog items (Doctor list / Doctor detail), § Catalogs (GET /v1/medicos, GET /v1/medicos/{id}),
// § Doctors (write). Field list and error codes of the writes are our decisions: docs/api/medicos.md.

let stack: TestStack;
let fx: TenantFixtures;
const ids: Record<string, number> = {};
let seq = 0;
const uniq = () => `${Date.now().toString(36)}${++seq}`;

const get = (path: string, creds = stack.creds) => stack.call({ path }, creds);
const idsOf = (res: { body: any }) => res.body.data.map((x: any) => x.id);
const create = (body: unknown, creds = stack.creds) =>
  stack.call({ method: 'POST', path: '/v1/medicos', body, idempotencyKey: randomUUID() }, creds);
const update = (id: number | string, body: unknown, creds = stack.creds) =>
  stack.call({ method: 'PATCH', path: `/v1/medicos/${id}`, body, idempotencyKey: randomUUID() }, creds);
const base = () => ({ nome: `Doutor ${uniq()}`, usuario: `dr.${uniq()}`, senha: 'Senha@123' });

function expect400(res: { status: number; body: any }, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('VAL_INVALID_PARAM');
  const fields = [res.body.error.details.field, ...(res.body.error.details.lista ?? []).map((i: any) => i.field)];
  expect(fields).toContain(field);
}

const DETAIL_KEYS = [
  'id',
  'nome',
  'nome_registro',
  'saudacao',
  'saudacao_id',
  'cpf',
  'rg',
  'data_nascimento',
  'sexo',
  'conselho',
  'especialidade',
  'papeis',
  'grupo_permissao_id',
  'usuario',
  'telefone',
  'celular',
  'email',
  'endereco',
  'cor_agenda',
  'ativo',
].sort();

beforeAll(async () => {
  stack = await startTestStack();
  fx = new TenantFixtures(stack.dataDir, stack.tenantSlug);
  ids.dr = fx.insert('saudacoes', { nome: 'Dr.' });
  ids.dra = fx.insert('saudacoes', { nome: 'Dra.' });
  ids.grupoMedico = fx.insert('grupos_permissao', { nome: 'Medico' });
  ids.grupoAdmin = fx.insert('grupos_permissao', { nome: 'Administrador' });
  ids.campinas = fx.insert('cidades', { nome: 'Campinas', uf: 'SP' });
  ids.exame = fx.medico({
    nome: 'CARLOS EXAME',
    papel_exame: 1,
    saudacao_id: ids.dr,
    conselho_sigla: 'CRM',
    conselho_numero: '12345',
    conselho_uf: 'SP',
    especialidade: 'Radiologia',
  });
  ids.laudo = fx.medico({ nome: 'CARLA LAUDO', papel_laudo: 1 });
  ids.solicitante = fx.medico({ nome: 'BRUNO SOLICITANTE', papel_solicitante: 1 });
  ids.ambos = fx.medico({ nome: 'CARMEM AMBOS', papel_exame: 1, papel_laudo: 1 });
  ids.inativo = fx.medico({ nome: 'CARLOS INATIVO', papel_exame: 1, ativo: 0 });
  ids.detalhe = fx.medico({
    nome: 'DIANA DETALHE',
    nome_registro: 'Diana D.',
    saudacao_id: ids.dra,
    grupo_permissao_id: ids.grupoMedico,
    usuario: 'diana.detalhe',
    cpf: '52998224725',
    rg: '123456789',
    data_nascimento: '1970-05-06',
    sexo: 'FEM',
    conselho_sigla: 'CRM',
    conselho_numero: '98765',
    conselho_uf: 'SP',
    papel_laudo: 1,
    telefone: '1133334444',
    endereco_cep: '0',
    endereco_numero: '0',
    cor_agenda: '#FF0000',
  });
});

afterAll(async () => {
  fx?.close();
  await stack?.stop();
});

describe('GET /v1/medicos', () => {
  test('list shape {id, nome, saudacao, conselho {sigla, numero, uf}, especialidade, papeis[], ativo}; cacheable', async () => {
    const res = await get('/v1/medicos?q=carlos');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, max-age=300');
    expect(res.body.data).toEqual([
      {
        id: ids.exame,
        nome: 'CARLOS EXAME',
        saudacao: 'Dr.',
        conselho: { sigla: 'CRM', numero: '12345', uf: 'SP' },
        especialidade: 'Radiologia',
        papeis: ['EXAME'],
        ativo: true,
      },
    ]);
  });

  test('"papel (repeatable, EXAME, LAUDO, SOLICITANTE; several values form a union)"', async () => {
    expect(idsOf(await get('/v1/medicos?papel=LAUDO')).sort()).toEqual([ids.laudo, ids.ambos, ids.detalhe].sort());
    expect(idsOf(await get('/v1/medicos?papel=SOLICITANTE&papel=EXAME')).sort()).toEqual(
      [ids.exame, ids.solicitante, ids.ambos].sort(),
    );
    expect400(await get('/v1/medicos?papel=CIRURGIAO'), 'papel');
    expect400(await get('/v1/medicos?papel=EXAME&papel=exame'), 'papel');
  });

  test('"q (prefix, min 3)"', async () => {
    expect(idsOf(await get('/v1/medicos?q=CAR')).sort()).toEqual([ids.exame, ids.laudo, ids.ambos].sort());
    // Prefix on the name, not contains.
    expect(idsOf(await get('/v1/medicos?q=LAUDO'))).toEqual([]);
    expect400(await get('/v1/medicos?q=ca'), 'q');
  });

  test('"ativo (default 1)", limit, offset, pagination meta', async () => {
    expect(idsOf(await get('/v1/medicos?q=carlos&ativo=0'))).toEqual([ids.inativo]);
    expect(idsOf(await get('/v1/medicos'))).not.toContain(ids.inativo);
    const page = await get('/v1/medicos?limit=2&offset=1');
    expect(page.body.data).toHaveLength(2);
    expect(page.body.meta).toMatchObject({ limit: 2, offset: 1, has_more: true });
    expect400(await get('/v1/medicos?ativo=x'), 'ativo');
    expect400(await get('/v1/medicos?limit=500'), 'limit');
    expect((await get('/v1/medicos?medico_id=1')).status).toBe(400);
  });
});

describe('GET /v1/medicos/{id}', () => {
  test('doctor detail with "cpf and rg masked (only last 2 digits visible)"; password never exposed', async () => {
    const res = await get(`/v1/medicos/${ids.detalhe}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, max-age=300');
    const d = res.body.data;
    expect(Object.keys(d).sort()).toEqual(DETAIL_KEYS);
    expect(d.cpf).toBe('*********25');
    expect(d.rg).toBe('*******89');
    expect(res.text).not.toContain('52998224725');
    expect(res.text).not.toContain('scrypt');
    for (const hidden of ['senha', 'senha_hash', 'foto', 'certificado']) expect(d).not.toHaveProperty(hidden);
    expect(d).toMatchObject({
      id: ids.detalhe,
      nome: 'DIANA DETALHE',
      nome_registro: 'Diana D.',
      saudacao: 'Dra.',
      saudacao_id: ids.dra,
      data_nascimento: '1970-05-06',
      sexo: 'FEM',
      conselho: { tipo: 'CRM', numero: '98765', uf: 'SP' },
      papeis: ['LAUDO'],
      grupo_permissao_id: ids.grupoMedico,
      usuario: 'diana.detalhe',
      telefone: '1133334444',
      cor_agenda: '#FF0000',
      ativo: true,
      endereco: {
        cep: '',
        logradouro: '',
        numero: '',
        complemento: '',
        bairro: '',
        cidade: '',
        cidade_id: null,
        estado: '',
      },
    });
  });

  test('404 RES_NOT_FOUND; path id not a positive integer is 400', async () => {
    const res = await get('/v1/medicos/99999');
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ code: 'RES_NOT_FOUND', message: expect.any(String), details: null });
    expect400(await get('/v1/medicos/0'), 'id');
    expect400(await get('/v1/medicos/abc'), 'id');
  });
});

describe('POST /v1/medicos', () => {
  test('201 with Location and the doctor detail (cpf/rg masked); "usuario and senha are required"', async () => {
    const body = {
      ...base(),
      cpf: makeCpf(777),
      rg: '55667788',
      saudacao: 'dra.',
      grupo_permissao: 'MEDICO',
      papeis: ['LAUDO', 'EXAME', 'LAUDO'],
      conselho: { tipo: 'crm', numero: 4321, uf: 'rj' },
      endereco: { logradouro: 'Rua X', numero: '5', cidade: 'campinas', estado: 'SP' },
      data_nascimento: '1975-01-01',
      sexo: 'FEM',
      email: 'dra@clinica.com.br',
      cor_agenda: '#00aa11',
    };
    const res = await create(body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const d = res.body.data;
    expect(res.headers.location).toBe(`/v1/medicos/${d.id}`);
    expect(res.headers['idempotency-replay']).toBe('false');
    expect(Object.keys(d).sort()).toEqual(DETAIL_KEYS);
    expect(d.cpf).toBe(`*********${body.cpf.slice(-2)}`);
    expect(d.rg).toBe('******88');
    expect(res.text).not.toContain('Senha@123');
    expect(d).toMatchObject({
      saudacao: 'Dra.',
      saudacao_id: ids.dra,
      grupo_permissao_id: ids.grupoMedico,
      papeis: ['EXAME', 'LAUDO'],
      conselho: { tipo: 'CRM', numero: '4321', uf: 'RJ' },
      endereco: { logradouro: 'Rua X', numero: '5', cidade: 'Campinas', cidade_id: ids.campinas, estado: 'SP' },
      usuario: body.usuario,
    });
    expect((await get(`/v1/medicos/${d.id}`)).body.data).toEqual(d);
    for (const missing of ['usuario', 'senha', 'nome']) {
      const partial: Record<string, unknown> = base();
      delete partial[missing];
      expect400(await create(partial), missing);
    }
  });

  test('"saudacao and grupo_permissao accept text (resolved) or ids"; unknown text or id is 422 INVALID_REFERENCE; both forms is 400', async () => {
    const byId = await create({ ...base(), saudacao_id: ids.dr, grupo_permissao_id: ids.grupoAdmin });
    expect(byId.body.data).toMatchObject({ saudacao: 'Dr.', saudacao_id: ids.dr, grupo_permissao_id: ids.grupoAdmin });
    const badText = await create({ ...base(), saudacao: 'Excelentissimo' });
    expect(badText.status).toBe(422);
    expect(badText.body.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'saudacao' } });
    const badId = await create({ ...base(), grupo_permissao_id: 9999 });
    expect(badId.status).toBe(422);
    expect(badId.body.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'grupo_permissao_id' } });
    expect400(await create({ ...base(), saudacao: 'Dr.', saudacao_id: ids.dr }), 'saudacao');
  });

  test('"endereco.cidade and endereco.estado are resolved by name in the backend": unknown city is 422 INVALID_REFERENCE', async () => {
    const res = await create({ ...base(), endereco: { cidade: 'Atlantida', estado: 'SP' } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'endereco.cidade' } });
  });

  test('decision: usuario unique among system users (case-insensitive) → 422 USUARIO_ALREADY_EXISTS', async () => {
    const first = base();
    expect((await create(first)).status).toBe(201);
    const res = await create({ ...base(), usuario: first.usuario.toUpperCase() });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('USUARIO_ALREADY_EXISTS');
    expect(res.body.error.details.field).toBe('usuario');
  });

  test('decision: format rules consistent with patients (400 VAL_INVALID_PARAM naming the field)', async () => {
    expect400(await create({ ...base(), cpf: '52998224726' }), 'cpf');
    expect400(await create({ ...base(), usuario: 'dr silva' }), 'usuario');
    expect400(await create({ ...base(), senha: 'x'.repeat(51) }), 'senha');
    expect400(await create({ ...base(), nome: 'Abc' }), 'nome');
    expect400(await create({ ...base(), email: 'nope' }), 'email');
    expect400(await create({ ...base(), sexo: 'F' }), 'sexo');
    expect400(await create({ ...base(), data_nascimento: '2999-01-01' }), 'data_nascimento');
    expect400(await create({ ...base(), papeis: ['CIRURGIAO'] }), 'papeis.0');
    expect400(await create({ ...base(), papeis: 'EXAME' }), 'papeis');
    expect400(await create({ ...base(), conselho: { tipo: 'CRM', numero: '12a' } }), 'conselho.numero');
    expect400(await create({ ...base(), conselho: { tipo: 'CRM', uf: 'ZZ' } }), 'conselho.uf');
    expect400(await create({ ...base(), cor_agenda: 'red' }), 'cor_agenda');
    expect400(await create({ ...base(), ativo: 'sim' }), 'ativo');
    expect400(await create({ ...base(), crm: '123' }), 'crm');
    expect400(await create({ ...base(), endereco: { cidade: 'Campinas', pais: 'BR' } }), 'endereco.pais');
    expect400(await create([base()]), 'body');
  });
});

describe('PATCH /v1/medicos/{id}', () => {
  test('"read, merge, write": omitted fields untouched; "papeis, conselho and endereco replace the whole current value"', async () => {
    const created = await create({
      ...base(),
      telefone: '1100001111',
      papeis: ['EXAME', 'LAUDO'],
      conselho: { tipo: 'CRM', numero: '111', uf: 'SP' },
      endereco: { logradouro: 'Rua A', numero: '1', bairro: 'Centro', cidade: 'Campinas', estado: 'SP' },
    });
    const id = created.body.data.id;
    const res = await update(id, {
      papeis: ['SOLICITANTE'],
      conselho: { numero: '222' },
      endereco: { logradouro: 'Rua B' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({
      id,
      nome: created.body.data.nome,
      telefone: '1100001111',
      usuario: created.body.data.usuario,
      papeis: ['SOLICITANTE'],
      conselho: { tipo: '', numero: '222', uf: '' },
      endereco: {
        cep: '',
        logradouro: 'Rua B',
        numero: '',
        complemento: '',
        bairro: '',
        cidade: '',
        cidade_id: null,
        estado: '',
      },
    });
    const cleared = await update(id, { papeis: [], conselho: null, endereco: null, telefone: null });
    expect(cleared.body.data).toMatchObject({ papeis: [], conselho: { tipo: '', numero: '', uf: '' }, telefone: null });
  });

  test('senha can be changed, never returned; usuario/senha/nome cannot be removed (400)', async () => {
    const created = await create(base());
    const id = created.body.data.id;
    const before = fx.get('medicos', id)!;
    const res = await update(id, { senha: 'NovaSenha!' });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('NovaSenha!');
    expect(fx.get('medicos', id)!.senha_hash).not.toBe(before.senha_hash);
    expect400(await update(id, { senha: null }), 'senha');
    expect400(await update(id, { usuario: '' }), 'usuario');
    expect400(await update(id, { nome: null }), 'nome');
  });

  test("own usuario is idempotent; another doctor's is 422 USUARIO_ALREADY_EXISTS", async () => {
    const a = (await create(base())).body.data;
    const b = (await create(base())).body.data;
    expect((await update(a.id, { usuario: a.usuario.toUpperCase() })).status).toBe(200);
    const clash = await update(a.id, { usuario: b.usuario });
    expect(clash.status).toBe(422);
    expect(clash.body.error.code).toBe('USUARIO_ALREADY_EXISTS');
  });

  test('404 RES_NOT_FOUND for an unknown id; 400 for a bad path id or body', async () => {
    const res = await update(99_999, { telefone: '1' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('RES_NOT_FOUND');
    expect400(await update(0, { telefone: '1' }), 'id');
    expect400(await update(ids.exame, { cpf: '123' }), 'cpf');
    expect400(await update(ids.exame, { id: 5 }), 'id');
  });

  test('doctor writes need medicos:write (catalogos:read is not enough), detail needs catalogos:read', async () => {
    const reader = await stack.newKey({ scopes: ['catalogos:read'] });
    const writer = await stack.newKey({ scopes: ['medicos:write'] });
    expect((await create(base(), reader)).status).toBe(403);
    expect((await update(ids.exame, { telefone: '1' }, reader)).status).toBe(403);
    expect((await get(`/v1/medicos/${ids.exame}`, writer)).status).toBe(403);
    expect((await create(base(), writer)).status).toBe(201);
  });
});
