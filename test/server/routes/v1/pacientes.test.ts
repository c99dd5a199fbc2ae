import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../../helpers/stack.ts';
import { backendAdmin, makeCpf, TenantFixtures } from '../../../helpers/fixtures.ts';
import { PACIENTE_DISCARDED_FIELDS } from '../../../../contracts/schemas/pacientes.ts';

// Spec: 02-resources-states-endpoints.md § Patients, § Patient (list item), § Patient detail.

let stack: TestStack;
let fx: TenantFixtures;
let seq = 0;
const cpf = () => makeCpf(4_000_000 + ++seq * 7919);
const uniq = () => `${Date.now().toString(36)}${++seq}`;

const post = (body: unknown, creds = stack.creds) =>
  stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: randomUUID() }, creds);
const patch = (id: number | string, body: unknown, creds = stack.creds) =>
  stack.call({ method: 'PATCH', path: `/v1/pacientes/${id}`, body, idempotencyKey: randomUUID() }, creds);
const get = (path: string) => stack.call({ path });
const unify = (body: unknown, idempotencyKey: string = randomUUID()) =>
  stack.call({ method: 'POST', path: '/v1/pacientes/unificar', body, idempotencyKey });

async function created(extra: Record<string, unknown> = {}): Promise<any> {
  const res = await post({ nome: `Paciente ${uniq()}`, data_nascimento: '1985-06-15', ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

function expect400(res: { status: number; body: any }, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('VAL_INVALID_PARAM');
  expect(res.body.data).toBeNull();
  const fields = [res.body.error.details.field, ...(res.body.error.details.lista ?? []).map((i: any) => i.field)];
  expect(fields).toContain(field);
}

const utcDay = (offsetDays = 0, offsetYears = 0) => {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() + offsetYears);
  d.setUTCDate(d.getUTCDate() + offsetDays);
  return d.toISOString().slice(0, 10);
};

const NEVER_RETURNED = [
  'senha',
  'usuario',
  'data_alteracao_senha',
  'foto_usuario',
  'observacao',
  'nome_responsavel',
  'cpf_responsavel',
  'matricula',
  'senha_hash',
  'senha_temporaria',
];
const DETAIL_KEYS = [
  'id',
  'saudacao',
  'nome',
  'nome_registro',
  'numero_prontuario',
  'cpf',
  'rg',
  'data_nascimento',
  'sexo',
  'estado_civil',
  'telefone',
  'celular',
  'email',
  'endereco',
  'convenio',
  'ativo',
  'criado_em',
  'atualizado_em',
  'criado_por_chave_id',
  'atualizado_por_chave_id',
].sort();

let convenioId: number;
let planoId: number;
let estadoCivilId: number;
let cidadeId: number;

beforeAll(async () => {
  stack = await startTestStack();
  fx = new TenantFixtures(stack.dataDir, stack.tenantSlug);
  convenioId = fx.insert('convenios', { nome: 'UNIMED TESTE', abreviacao: 'UNI', codigo_ans: '123456' });
  planoId = fx.insert('planos', { convenio_id: convenioId, nome: 'Plano Ouro', codigo_ans: '999' });
  estadoCivilId = fx.insert('estados_civis', { nome: 'Casado(a)' });
  cidadeId = fx.insert('cidades', { nome: 'Campinas', uf: 'SP' });
});

afterAll(async () => {
  fx?.close();
  await stack?.stop();
});

describe('GET /v1/pacientes', () => {
  test('"cpf: exactly 11 digits, exact match"', async () => {
    const a = await created({ cpf: cpf() });
    await created({ cpf: cpf() });
    const res = await get(`/v1/pacientes?cpf=${a.cpf}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: any) => p.id)).toEqual([a.id]);
    expect400(await get('/v1/pacientes?cpf=1234567890'), 'cpf');
    expect400(
      await get(`/v1/pacientes?cpf=${a.cpf.slice(0, 3)}.${a.cpf.slice(3, 6)}.${a.cpf.slice(6, 9)}-${a.cpf.slice(9)}`),
      'cpf',
    );
    // Exact, not prefix: the first 10 digits plus another digit find nothing.
    const other = `${a.cpf.slice(0, 10)}${(Number(a.cpf[10]) + 1) % 10}`;
    expect((await get(`/v1/pacientes?cpf=${other}`)).body.data).toEqual([]);
  });

  test('"nome: at least 3 chars after trim; contains, case-insensitive"', async () => {
    const token = `Zq${uniq()}`;
    const p = await created({ nome: `Maria ${token} Souza` });
    await created({ nome: 'Outro Paciente Qualquer' });
    const res = await get(`/v1/pacientes?nome=${encodeURIComponent(` ${token.toLowerCase().slice(1)} `)}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((x: any) => x.id)).toEqual([p.id]);
    expect400(await get('/v1/pacientes?nome=%20ab%20'), 'nome');
    expect((await get('/v1/pacientes?nome=abc')).status).toBe(200);
  });

  test('"periodo_cadastro_inicio, periodo_cadastro_fim: inclusive (end to 23:59:59)"', async () => {
    const tag = `PERIODO ${uniq()}`.toUpperCase();
    const before = fx.paciente({ nome: `${tag} A`, criado_em: '2023-03-09T23:59:59Z' });
    const start = fx.paciente({ nome: `${tag} B`, criado_em: '2023-03-10T00:00:00Z' });
    const end = fx.paciente({ nome: `${tag} C`, criado_em: '2023-03-10T23:59:59Z' });
    const after = fx.paciente({ nome: `${tag} D`, criado_em: '2023-03-11T00:00:00Z' });
    const res = await get(
      `/v1/pacientes?nome=${encodeURIComponent(tag)}&periodo_cadastro_inicio=2023-03-10&periodo_cadastro_fim=2023-03-10`,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: any) => p.id)).toEqual([start, end]);
    const open = await get(`/v1/pacientes?nome=${encodeURIComponent(tag)}&periodo_cadastro_inicio=2023-03-10`);
    expect(open.body.data.map((p: any) => p.id)).toEqual([start, end, after]);
    const upTo = await get(`/v1/pacientes?nome=${encodeURIComponent(tag)}&periodo_cadastro_fim=2023-03-09`);
    expect(upTo.body.data.map((p: any) => p.id)).toEqual([before]);
    expect400(await get('/v1/pacientes?periodo_cadastro_inicio=2023-02-30'), 'periodo_cadastro_inicio');
    expect400(await get('/v1/pacientes?periodo_cadastro_fim=10/03/2023'), 'periodo_cadastro_fim');
    // Decision (docs/decisions.md): a start after the end is a 400, not an empty page.
    expect400(
      await get('/v1/pacientes?periodo_cadastro_inicio=2023-03-11&periodo_cadastro_fim=2023-03-10'),
      'periodo_cadastro_fim',
    );
  });

  test('"ativo: 0 or 1, strict"', async () => {
    const tag = `ATIVO ${uniq()}`.toUpperCase();
    const on = fx.paciente({ nome: `${tag} ON`, ativo: 1 });
    const off = fx.paciente({ nome: `${tag} OFF`, ativo: 0 });
    const q = `/v1/pacientes?nome=${encodeURIComponent(tag)}`;
    expect((await get(`${q}&ativo=0`)).body.data.map((p: any) => p.id)).toEqual([off]);
    expect((await get(`${q}&ativo=1`)).body.data.map((p: any) => p.id)).toEqual([on]);
    expect((await get(q)).body.data.map((p: any) => p.id)).toEqual([on, off]);
    for (const bad of ['true', '2', '01', '']) expect400(await get(`${q}&ativo=${bad}`), 'ativo');
  });

  test('"limit, offset: 1-200 default 50; >= 0 default 0" and pagination meta', async () => {
    const tag = `PAGINA ${uniq()}`.toUpperCase();
    const ids = [1, 2, 3].map((n) => fx.paciente({ nome: `${tag} ${n}` }));
    const q = `/v1/pacientes?nome=${encodeURIComponent(tag)}`;
    const first = await get(`${q}&limit=2`);
    expect(first.body.data.map((p: any) => p.id)).toEqual(ids.slice(0, 2));
    expect(first.body.meta).toMatchObject({ limit: 2, offset: 0, total: 3, has_more: true });
    const last = await get(`${q}&limit=2&offset=2`);
    expect(last.body.data.map((p: any) => p.id)).toEqual([ids[2]]);
    expect(last.body.meta).toMatchObject({ limit: 2, offset: 2, total: 3, has_more: false });
    expect((await get(q)).body.meta).toMatchObject({ limit: 50, offset: 0, total: 3, has_more: false });
    for (const bad of ['limit=0', 'limit=201', 'limit=1.5', 'limit=abc']) expect400(await get(`${q}&${bad}`), 'limit');
    for (const bad of ['offset=-1', 'offset=1e2']) expect400(await get(`${q}&${bad}`), 'offset');
    expect((await get(`${q}&limit=200`)).status).toBe(200);
  });

  test('unknown query parameters are a whitelist violation (400)', async () => {
    const res = await get('/v1/pacientes?medico_id=1');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VAL_INVALID_PARAM');
  });

  test("list items carry exactly the spec's list fields (sexo as M/F), nothing never-returned", async () => {
    const p = await created({
      cpf: cpf(),
      sexo: 'FEM',
      usuario: `lista.${uniq()}`,
      senha: 'segredo1',
      telefone: '1133334444',
      email: 'a@b.com',
    });
    const res = await get(`/v1/pacientes?cpf=${p.cpf}`);
    const item = res.body.data[0];
    expect(Object.keys(item).sort()).toEqual(
      ['ativo', 'cpf', 'criado_em', 'data_nascimento', 'email', 'id', 'nome', 'sexo', 'telefone'].sort(),
    );
    expect(item).toMatchObject({ id: p.id, sexo: 'F', telefone: '1133334444', email: 'a@b.com', ativo: true });
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('GET /v1/pacientes/{id}', () => {
  test('200 patient detail: every detail field, convenio read shape {id, nome, numero_carteirinha}, never-returned fields absent', async () => {
    const p = await created({
      cpf: cpf(),
      saudacao: 'Sra.',
      rg: '123456789',
      sexo: 'FEM',
      estado_civil_id: estadoCivilId,
      celular: '11999998888',
      usuario: `det.${uniq()}`,
      senha: 'segredo1',
      convenio: { id: convenioId, plano_id: planoId, numero_carteirinha: 'CART-1' },
      endereco: {
        cep: '13010-000',
        logradouro: 'Rua A',
        numero: 10,
        bairro: 'Centro',
        cidade_id: cidadeId,
        estado: 'sp',
      },
    });
    const res = await get(`/v1/pacientes/${p.id}`);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(Object.keys(d).sort()).toEqual(DETAIL_KEYS);
    for (const key of NEVER_RETURNED) expect(d).not.toHaveProperty(key);
    expect(d).toMatchObject({
      id: p.id,
      saudacao: 'Sra.',
      rg: '123456789',
      sexo: 'FEM',
      estado_civil: { id: estadoCivilId, nome: 'Casado(a)' },
      celular: '11999998888',
      convenio: { id: convenioId, nome: 'UNIMED TESTE', numero_carteirinha: 'CART-1' },
      endereco: {
        cep: '13010000',
        logradouro: 'Rua A',
        numero: '10',
        complemento: '',
        bairro: 'Centro',
        cidade: 'Campinas',
        cidade_id: cidadeId,
        estado: 'SP',
      },
    });
    expect(d.convenio).not.toHaveProperty('plano_id');
  });

  test('"In the empty endereco, cep and numero normalize 0 to empty string"', async () => {
    const id = fx.paciente({ nome: 'ENDERECO ZERO', endereco_cep: '0', endereco_numero: '0' });
    const res = await get(`/v1/pacientes/${id}`);
    expect(res.body.data.endereco).toEqual({
      cep: '',
      logradouro: '',
      numero: '',
      complemento: '',
      bairro: '',
      cidade: '',
      cidade_id: null,
      estado: '',
    });
  });

  test('"404 RES_NOT_FOUND for an id not in the tenant (generic message, no details)"; invalid path id is 400', async () => {
    const res = await get('/v1/pacientes/987654');
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ code: 'RES_NOT_FOUND', message: expect.any(String), details: null });
    for (const bad of ['0', '-1', 'abc', '1.5', '01']) expect400(await get(`/v1/pacientes/${bad}`), 'id');
  });

  test('a patient created outside the API has criado_por_chave_id null', async () => {
    const id = fx.paciente({ nome: 'FORA DA API' });
    const res = await get(`/v1/pacientes/${id}`);
    expect(res.body.data.criado_por_chave_id).toBeNull();
  });
});

describe('POST /v1/pacientes', () => {
  test('201 patient detail, Location, Idempotency-Replay false; nome upper case; numero_prontuario auto-generated; criado_por_chave_id', async () => {
    const res = await post({ nome: '  José da Silva  ', data_nascimento: '1980-01-02' });
    expect(res.status).toBe(201);
    const d = res.body.data;
    expect(res.headers.location).toBe(`/v1/pacientes/${d.id}`);
    expect(res.headers['idempotency-replay']).toBe('false');
    expect(d.nome).toBe('JOSÉ DA SILVA');
    expect(typeof d.numero_prontuario).toBe('string');
    expect(d.numero_prontuario.length).toBeGreaterThan(0);
    expect(d).toMatchObject({
      criado_por_chave_id: stack.creds.chaveId,
      atualizado_por_chave_id: null,
      atualizado_em: null,
      ativo: true,
      convenio: null,
    });
    expect(Object.keys(d).sort()).toEqual(DETAIL_KEYS);
    // The stored value is what a read returns.
    expect((await get(`/v1/pacientes/${d.id}`)).body.data.numero_prontuario).toBe(d.numero_prontuario);
  });

  test('"nome: string 5-100, required"; "data_nascimento: required"', async () => {
    expect400(await post({ data_nascimento: '1980-01-02' }), 'nome');
    expect400(await post({ nome: 'Joao Silva' }), 'data_nascimento');
    expect400(await post({ nome: 'Ana ', data_nascimento: '1980-01-02' }), 'nome');
    expect400(await post({ nome: 'x'.repeat(101), data_nascimento: '1980-01-02' }), 'nome');
    expect400(await post({ nome: 12345, data_nascimento: '1980-01-02' }), 'nome');
    expect((await post({ nome: 'Ana B', data_nascimento: '1980-01-02' })).status).toBe(201);
    expect((await post({ nome: 'x'.repeat(100), data_nascimento: '1980-01-02' })).status).toBe(201);
  });

  test('consolidated 400: every failing field is listed, details.field is the first', async () => {
    const res = await post({ nome: 'Ab', data_nascimento: 'ontem', sexo: 'M' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.lista.map((i: any) => i.field).sort()).toEqual(['data_nascimento', 'nome', 'sexo']);
    expect(res.body.error.message).toBe('3 campos precisam de atencao.');
  });

  test('"data_nascimento: between 130 years ago and today inclusive"', async () => {
    const body = (data_nascimento: string) => ({ nome: `Idade ${uniq()}`, data_nascimento });
    expect((await post(body(utcDay(0)))).status).toBe(201);
    expect((await post(body(utcDay(0, -130)))).status).toBe(201);
    expect400(await post(body(utcDay(1))), 'data_nascimento');
    expect400(await post(body(utcDay(-1, -130))), 'data_nascimento');
    expect400(await post(body('1990-02-30')), 'data_nascimento');
    expect400(await post(body('02/01/1990')), 'data_nascimento');
  });

  test('"cpf: when sent, format and check-digit validated"', async () => {
    const good = cpf();
    const badDigit = `${good.slice(0, 10)}${(Number(good[10]) + 1) % 10}`;
    expect400(await post({ nome: 'Cpf Ruim', data_nascimento: '1980-01-02', cpf: badDigit }), 'cpf');
    expect400(await post({ nome: 'Cpf Ruim', data_nascimento: '1980-01-02', cpf: good.slice(0, 10) }), 'cpf');
    expect400(await post({ nome: 'Cpf Ruim', data_nascimento: '1980-01-02', cpf: Number(good) }), 'cpf');
    expect400(await post({ nome: 'Cpf Ruim', data_nascimento: '1980-01-02', cpf: '11111111111' }), 'cpf');
    expect((await post({ nome: 'Cpf Bom', data_nascimento: '1980-01-02', cpf: good })).body.data.cpf).toBe(good);
  });

  test('422 CPF_ALREADY_EXISTS with details.paciente_id_existente (integer) and details.nome', async () => {
    const existing = await created({ cpf: cpf() });
    const res = await post({ nome: 'Outra Pessoa', data_nascimento: '1990-01-01', cpf: existing.cpf });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('CPF_ALREADY_EXISTS');
    expect(res.body.error.details).toMatchObject({ paciente_id_existente: existing.id, nome: existing.nome });
  });

  test('"numero_prontuario ... in use gives 422 MEDICAL_RECORD_ALREADY_EXISTS" (same details); a sent value is stored', async () => {
    const numero = `PR-${uniq()}`;
    const first = await created({ numero_prontuario: numero });
    expect(first.numero_prontuario).toBe(numero);
    const res = await post({ nome: 'Outra Pessoa', data_nascimento: '1990-01-01', numero_prontuario: numero });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('MEDICAL_RECORD_ALREADY_EXISTS');
    expect(res.body.error.details).toMatchObject({ paciente_id_existente: first.id, nome: first.nome });
  });

  test('"sexo: MAS, FEM, OUT; string only"', async () => {
    for (const bad of ['M', 'mas', 1, true])
      expect400(await post({ nome: 'Sexo Ruim', data_nascimento: '1980-01-02', sexo: bad }), 'sexo');
    const res = await post({ nome: 'Sexo Bom', data_nascimento: '1980-01-02', sexo: 'OUT' });
    expect(res.status).toBe(201);
  });

  // Issue 20 § 9: OUT read back as "OUT" from create, PATCH and detail (the list already answered null).
  test('sexo in every answer follows the spec\'s output values: "`M`/`F`/`MAS`/`FEM` per endpoint output, or null; write input uses `MAS|FEM|OUT`" (list: "`M` or `F` or null")', async () => {
    const nome = `Sexo Saida ${uniq()}`;
    const out = await post({ nome, data_nascimento: '1980-01-02', sexo: 'OUT' });
    expect(out.status).toBe(201);
    expect(out.body.data.sexo).toBeNull();
    const id = out.body.data.id;
    expect((await get(`/v1/pacientes/${id}`)).body.data.sexo).toBeNull();
    const listed = async () =>
      (await get(`/v1/pacientes?nome=${encodeURIComponent(nome)}`)).body.data.map((p: any) => p.sexo);
    expect(await listed()).toEqual([null]);
    // MAS and FEM are output values: the detail keeps them, the list shortens them.
    const fem = await patch(id, { sexo: 'FEM' });
    expect(fem.body.data.sexo).toBe('FEM');
    expect((await get(`/v1/pacientes/${id}`)).body.data.sexo).toBe('FEM');
    expect(await listed()).toEqual(['F']);
    const backToOut = await patch(id, { sexo: 'OUT' });
    expect(backToOut.status).toBe(200);
    expect(backToOut.body.data.sexo).toBeNull();
    expect((await get(`/v1/pacientes/${id}`)).body.data.sexo).toBeNull();
    const mas = await patch(id, { sexo: 'MAS' });
    expect(mas.body.data.sexo).toBe('MAS');
    expect(await listed()).toEqual(['M']);
  });

  test('"email: valid e-mail"; estado_civil_id integer; ativo boolean', async () => {
    expect400(await post({ nome: 'Email Ruim', data_nascimento: '1980-01-02', email: 'nao-e-email' }), 'email');
    expect400(
      await post({ nome: 'Estado Civil', data_nascimento: '1980-01-02', estado_civil_id: '1' }),
      'estado_civil_id',
    );
    expect400(await post({ nome: 'Ativo Ruim', data_nascimento: '1980-01-02', ativo: 'false' }), 'ativo');
    const res = await post({ nome: 'Inativo Ok', data_nascimento: '1980-01-02', ativo: false, email: 'x@y.com.br' });
    expect(res.body.data).toMatchObject({ ativo: false, email: 'x@y.com.br' });
  });

  test('"usuario: string 1-50, chars A-Z a-z 0-9 . _ - @"; stored, never returned', async () => {
    // "" is "no value" (a random usuario), like null: see docs/decisions.md.
    for (const bad of ['joao silva', 'joão', 'a'.repeat(51), 'x#y', 42]) {
      expect400(
        await post({ nome: 'Usuario Ruim', data_nascimento: '1980-01-02', usuario: bad, senha: 's' }),
        'usuario',
      );
    }
    const usuario = `Joao.Silva_${uniq()}-x@portal`;
    const res = await post({ nome: 'Usuario Bom', data_nascimento: '1980-01-02', usuario });
    expect(res.status).toBe(201);
    expect(res.body.data).not.toHaveProperty('usuario');
    expect(fx.get('pacientes', res.body.data.id)?.usuario).toBe(usuario);
  });

  test('"usuario ... case-insensitive uniqueness, else 422 USUARIO_ALREADY_EXISTS" with details.nome and paciente_id_existente', async () => {
    const usuario = `unico.${uniq()}`;
    const first = await created({ usuario });
    const res = await post({ nome: 'Outra Pessoa', data_nascimento: '1990-01-01', usuario: usuario.toUpperCase() });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('USUARIO_ALREADY_EXISTS');
    expect(res.body.error.details).toMatchObject({ paciente_id_existente: first.id, nome: first.nome });
  });

  test('"usuario absent gives a random one"; "senha absent gives a random password"', async () => {
    const a = await created();
    const b = await created();
    const rowA = fx.get('pacientes', a.id)!;
    const rowB = fx.get('pacientes', b.id)!;
    expect(rowA.usuario).toMatch(/\S+/);
    expect(rowA.usuario).not.toBe(rowB.usuario);
    expect(rowA.senha_hash).not.toBe(rowB.senha_hash);
  });

  test('"senha: string 1-50, write-only, never returned"; "senha_temporaria: only with senha; default true; false stores it as definitive"', async () => {
    expect400(await post({ nome: 'Senha Longa', data_nascimento: '1980-01-02', senha: 'x'.repeat(51) }), 'senha');
    expect400(
      await post({ nome: 'Sem Senha', data_nascimento: '1980-01-02', senha_temporaria: false }),
      'senha_temporaria',
    );
    expect400(
      await post({ nome: 'Senha Temp', data_nascimento: '1980-01-02', senha: 'abc', senha_temporaria: 'nao' }),
      'senha_temporaria',
    );
    const temp = await post({ nome: 'Senha Padrao', data_nascimento: '1980-01-02', senha: 'minha senha' });
    const definitive = await post({
      nome: 'Senha Definitiva',
      data_nascimento: '1980-01-02',
      senha: 'minha senha',
      senha_temporaria: false,
    });
    for (const res of [temp, definitive]) {
      expect(res.status).toBe(201);
      expect(res.text).not.toContain('minha senha');
      expect(res.body.data).not.toHaveProperty('senha');
      expect(res.body.data).not.toHaveProperty('senha_temporaria');
    }
    expect(fx.get('pacientes', temp.body.data.id)?.senha_temporaria).toBe(1);
    const row = fx.get('pacientes', definitive.body.data.id)!;
    expect(row.senha_temporaria).toBe(0);
    expect(row.senha_hash).not.toContain('minha senha');
  });

  test('"Silently discarded fields" are accepted, dropped and never echoed', async () => {
    const discarded = Object.fromEntries(
      PACIENTE_DISCARDED_FIELDS.map((f) => [f, f === 'data_alteracao_senha' ? '2001-01-01T00:00:00Z' : 'X']),
    );
    expect(Object.keys(discarded)).toHaveLength(14);
    const res = await post({ nome: 'Campos Descartados', data_nascimento: '1980-01-02', ...discarded });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    for (const f of PACIENTE_DISCARDED_FIELDS) expect(res.body.data).not.toHaveProperty(f);
    expect(fx.get('pacientes', res.body.data.id)?.data_alteracao_senha).not.toBe('2001-01-01T00:00:00Z');
  });

  test('decision: an unknown (not discarded) body field is a 400 naming it', async () => {
    expect400(await post({ nome: 'Campo Estranho', data_nascimento: '1980-01-02', apelido: 'Zé' }), 'apelido');
    expect400(
      await post({ nome: 'Campo Estranho', data_nascimento: '1980-01-02', endereco: { cidade: 'Campinas' } }),
      'endereco.cidade',
    );
    expect400(await post({ nome: 'Campo Estranho', data_nascimento: '1980-01-02', id: 5 }), 'id');
  });

  test('a body that is not a JSON object is a 400', async () => {
    expect400(await post([{ nome: 'Lista', data_nascimento: '1980-01-02' }]), 'body');
    const res = await stack.call({
      method: 'POST',
      path: '/v1/pacientes',
      body: '{"nome":',
      idempotencyKey: randomUUID(),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VAL_INVALID_PARAM');
  });

  test('"endereco ... present replaces whole; absent stays empty"; cidade_id reference checked', async () => {
    const absent = await created();
    expect(absent.endereco).toEqual({
      cep: '',
      logradouro: '',
      numero: '',
      complemento: '',
      bairro: '',
      cidade: '',
      cidade_id: null,
      estado: '',
    });
    const withAddr = await created({
      endereco: { logradouro: 'Av. Brasil', numero: '100A', cidade_id: cidadeId, estado: 'SP' },
    });
    expect(withAddr.endereco).toEqual({
      cep: '',
      logradouro: 'Av. Brasil',
      numero: '100A',
      complemento: '',
      bairro: '',
      cidade: 'Campinas',
      cidade_id: cidadeId,
      estado: 'SP',
    });
    expect400(
      await post({ nome: 'Cep Ruim', data_nascimento: '1980-01-02', endereco: { cep: '1234' } }),
      'endereco.cep',
    );
    expect400(
      await post({ nome: 'Uf Ruim', data_nascimento: '1980-01-02', endereco: { estado: 'XX' } }),
      'endereco.estado',
    );
    const badCity = await post({ nome: 'Cidade Ruim', data_nascimento: '1980-01-02', endereco: { cidade_id: 999999 } });
    expect(badCity.status).toBe(422);
    expect(badCity.body.error.code).toBe('BUSINESS_RULE');
  });

  test('"convenio: {id, plano_id, numero_carteirinha}" — write responses show that shape; nonexistent insurer is 422 BUSINESS_RULE', async () => {
    const p = await created({ convenio: { id: convenioId, plano_id: planoId, numero_carteirinha: '0001' } });
    expect(p.convenio).toEqual({ id: convenioId, plano_id: planoId, numero_carteirinha: '0001' });
    const res = await post({ nome: 'Convenio Ruim', data_nascimento: '1980-01-02', convenio: { id: 999999 } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('BUSINESS_RULE');
    expect400(
      await post({ nome: 'Convenio Sem Id', data_nascimento: '1980-01-02', convenio: { numero_carteirinha: '1' } }),
      'convenio.id',
    );
  });

  test('"cpf ... required when the tenant reference setting cpf_obrigatorio = 1"; "celular ... required when celular_obrigatorio = 1" (422 BUSINESS_RULE)', async () => {
    const slug = `pac-config-${uniq().toLowerCase()}`;
    await stack.createTenant(slug);
    const creds = await stack.newKey({ tenant: slug, scopes: ['pacientes:write'] });
    const admin = backendAdmin(stack);
    expect(
      (await admin('PATCH', `/tenants/${slug}/settings`, { cpf_obrigatorio: 1, celular_obrigatorio: 1 })).status,
    ).toBe(200);
    const noCpf = await post({ nome: 'Sem Cpf Aqui', data_nascimento: '1980-01-02', celular: '11999990000' }, creds);
    expect(noCpf.status).toBe(422);
    expect(noCpf.body.error).toMatchObject({ code: 'BUSINESS_RULE', details: { field: 'cpf' } });
    const noCel = await post({ nome: 'Sem Celular', data_nascimento: '1980-01-02', cpf: cpf() }, creds);
    expect(noCel.status).toBe(422);
    expect(noCel.body.error).toMatchObject({ code: 'BUSINESS_RULE', details: { field: 'celular' } });
    const ok = await post(
      { nome: 'Com Tudo Ok', data_nascimento: '1980-01-02', cpf: cpf(), celular: '11999990000' },
      creds,
    );
    expect(ok.status).toBe(201);
    // PATCH cannot reset a tenant-required field either.
    const reset = await patch(ok.body.data.id, { cpf: null }, creds);
    expect(reset.status).toBe(422);
    expect(reset.body.error.code).toBe('BUSINESS_RULE');
    // In the default tenant (settings off) neither is required: covered by every other create in this file.
  });
});

describe('PATCH /v1/pacientes/{id}', () => {
  test('"omitted field untouched; value null or empty string resets the field"; atualizado_* set, criado_* preserved', async () => {
    const p = await created({ telefone: '1130000000', email: 'a@b.com', rg: '999', celular: '11911112222' });
    const other = await stack.newKey({ scopes: ['pacientes:write', 'pacientes:read'] });
    const res = await patch(p.id, { telefone: null, email: '' }, other);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: p.id,
      telefone: null,
      email: null,
      rg: '999',
      celular: '11911112222',
      nome: p.nome,
      criado_em: p.criado_em,
      criado_por_chave_id: stack.creds.chaveId,
      atualizado_por_chave_id: other.chaveId,
    });
    expect(typeof res.body.data.atualizado_em).toBe('string');
    expect(res.headers['idempotency-replay']).toBe('false');
  });

  test('"endereco/convenio present replace the whole current sub-object (no sub-merge; unsent inner fields become empty); {} or null clears"', async () => {
    const p = await created({
      endereco: {
        cep: '13010000',
        logradouro: 'Rua A',
        numero: '10',
        bairro: 'Centro',
        cidade_id: cidadeId,
        estado: 'SP',
      },
      convenio: { id: convenioId, plano_id: planoId, numero_carteirinha: '77' },
    });
    const replaced = await patch(p.id, { endereco: { logradouro: 'Rua B' }, convenio: { id: convenioId } });
    expect(replaced.body.data.endereco).toEqual({
      cep: '',
      logradouro: 'Rua B',
      numero: '',
      complemento: '',
      bairro: '',
      cidade: '',
      cidade_id: null,
      estado: '',
    });
    expect(replaced.body.data.convenio).toEqual({ id: convenioId, plano_id: null, numero_carteirinha: '' });
    const emptyObj = await patch(p.id, { endereco: {}, convenio: {} });
    expect(emptyObj.body.data.endereco.logradouro).toBe('');
    expect(emptyObj.body.data.convenio).toBeNull();
    await patch(p.id, { endereco: { logradouro: 'Rua C' }, convenio: { id: convenioId } });
    const nulls = await patch(p.id, { endereco: null, convenio: null });
    expect(nulls.body.data.endereco.logradouro).toBe('');
    expect(nulls.body.data.convenio).toBeNull();
  });

  test('"id preserved": an id in the body is ignored', async () => {
    const p = await created();
    const res = await patch(p.id, { id: p.id + 1000, saudacao: 'Sr.' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: p.id, saudacao: 'Sr.' });
  });

  test('"Same per-field validation as POST"; nome and data_nascimento cannot be reset', async () => {
    const p = await created();
    expect400(await patch(p.id, { cpf: '12345678900' }), 'cpf');
    expect400(await patch(p.id, { sexo: 'F' }), 'sexo');
    expect400(await patch(p.id, { nome: 'Abc' }), 'nome');
    expect400(await patch(p.id, { nome: null }), 'nome');
    expect400(await patch(p.id, { data_nascimento: '' }), 'data_nascimento');
    expect400(await patch(p.id, { data_nascimento: utcDay(1) }), 'data_nascimento');
    expect400(await patch(p.id, { senha_temporaria: true }), 'senha_temporaria');
    expect400(await patch(p.id, { usuario: 'com espaco' }), 'usuario');
    expect400(await patch(p.id, { novo_campo: 1 }), 'novo_campo');
    const upper = await patch(p.id, { nome: 'nome novo do paciente' });
    expect(upper.body.data.nome).toBe('NOME NOVO DO PACIENTE');
  });

  test('"Silently discarded fields" are dropped on PATCH too', async () => {
    const p = await created();
    const res = await patch(p.id, { observacao: 'x', matricula: '1', nome_responsavel: 'Y', telefone: '1144445555' });
    expect(res.status).toBe(200);
    expect(res.body.data.telefone).toBe('1144445555');
    expect(res.body.data).not.toHaveProperty('observacao');
  });

  test('"CPF_ALREADY_EXISTS (changing to another patient\'s CPF; the patient\'s own CPF gives idempotent 200)"', async () => {
    const a = await created({ cpf: cpf() });
    const b = await created({ cpf: cpf() });
    const own = await patch(a.id, { cpf: a.cpf });
    expect(own.status).toBe(200);
    expect(own.body.data.cpf).toBe(a.cpf);
    const clash = await patch(a.id, { cpf: b.cpf });
    expect(clash.status).toBe(422);
    expect(clash.body.error.code).toBe('CPF_ALREADY_EXISTS');
    expect(clash.body.error.details).toMatchObject({ paciente_id_existente: b.id, nome: b.nome });
  });

  test('MEDICAL_RECORD_ALREADY_EXISTS and USUARIO_ALREADY_EXISTS on PATCH; "setting the patient\'s own value is idempotent"', async () => {
    const usuarioA = `pat.a.${uniq()}`;
    const a = await created({ usuario: usuarioA });
    const b = await created({ usuario: `pat.b.${uniq()}` });
    const ownUsuario = await patch(a.id, { usuario: usuarioA.toUpperCase() });
    expect(ownUsuario.status).toBe(200);
    const ownNumero = await patch(a.id, { numero_prontuario: a.numero_prontuario });
    expect(ownNumero.status).toBe(200);
    const numero = await patch(a.id, { numero_prontuario: b.numero_prontuario });
    expect(numero.status).toBe(422);
    expect(numero.body.error).toMatchObject({
      code: 'MEDICAL_RECORD_ALREADY_EXISTS',
      details: { paciente_id_existente: b.id, nome: b.nome },
    });
    const usuario = await patch(b.id, { usuario: usuarioA.toUpperCase() });
    expect(usuario.status).toBe(422);
    expect(usuario.body.error).toMatchObject({
      code: 'USUARIO_ALREADY_EXISTS',
      details: { paciente_id_existente: a.id, nome: a.nome },
    });
  });

  test('"usuario, senha, senha_temporaria accepted since 1.4.0; omitting them keeps current credentials"', async () => {
    const p = await created({ usuario: `cred.${uniq()}`, senha: 'primeira' });
    const before = fx.get('pacientes', p.id)!;
    await patch(p.id, { telefone: '1100000000' });
    const untouched = fx.get('pacientes', p.id)!;
    expect(untouched.senha_hash).toBe(before.senha_hash);
    expect(untouched.usuario).toBe(before.usuario);
    const novo = `cred.novo.${uniq()}`;
    const res = await patch(p.id, { usuario: novo, senha: 'segunda', senha_temporaria: false });
    expect(res.status).toBe(200);
    expect(res.body.data).not.toHaveProperty('usuario');
    expect(res.body.data).not.toHaveProperty('senha');
    const after = fx.get('pacientes', p.id)!;
    expect(after.usuario).toBe(novo);
    expect(after.senha_hash).not.toBe(before.senha_hash);
    expect(after.senha_temporaria).toBe(0);
  });

  test('path id 0 or negative gives 400; unknown id gives 404 RES_NOT_FOUND', async () => {
    expect400(await patch(0, { telefone: '1' }), 'id');
    expect400(await patch(-3, { telefone: '1' }), 'id');
    const res = await patch(999_999, { telefone: '1' });
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ code: 'RES_NOT_FOUND', message: expect.any(String), details: null });
  });

  test('"Replay returns 200 with Idempotency-Replay: true"', async () => {
    const p = await created();
    const key = randomUUID();
    const call = () =>
      stack.call({ method: 'PATCH', path: `/v1/pacientes/${p.id}`, body: { saudacao: 'Dr.' }, idempotencyKey: key });
    const first = await call();
    const replay = await call();
    expect(first.status).toBe(200);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotency-replay']).toBe('true');
    expect(replay.body.meta.idempotent_replay).toBe(true);
    expect(replay.body.data).toEqual(first.body.data);
  });
});

describe('POST /v1/pacientes/unificar', () => {
  test('200 {paciente_id_principal, paciente_id_duplicado, status: unificado}; duplicate removed, principal kept', async () => {
    const principal = await created();
    const duplicate = await created();
    const res = await unify({ paciente_id_principal: principal.id, paciente_id_duplicado: duplicate.id });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      paciente_id_principal: principal.id,
      paciente_id_duplicado: duplicate.id,
      status: 'unificado',
    });
    expect(res.headers['idempotency-replay']).toBe('false');
    expect((await get(`/v1/pacientes/${duplicate.id}`)).status).toBe(404);
    expect((await get(`/v1/pacientes/${principal.id}`)).status).toBe(200);
  });

  test('"each accepts a JSON integer or a digits-only string"', async () => {
    const principal = await created();
    const duplicate = await created();
    const res = await unify({ paciente_id_principal: String(principal.id), paciente_id_duplicado: duplicate.id });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      paciente_id_principal: principal.id,
      paciente_id_duplicado: duplicate.id,
      status: 'unificado',
    });
  });

  test('"400 (key, non-JSON body, id missing/non-numeric/<= 0)"', async () => {
    const p = await created();
    expect400(await unify({ paciente_id_principal: p.id }), 'paciente_id_duplicado');
    expect400(await unify({ paciente_id_duplicado: p.id }), 'paciente_id_principal');
    for (const bad of ['abc', '12a', 0, -4, '0', '-4', 1.5, '1.5', ' 12', null, true]) {
      expect400(await unify({ paciente_id_principal: p.id, paciente_id_duplicado: bad }), 'paciente_id_duplicado');
    }
    const nonJson = await stack.call({
      method: 'POST',
      path: '/v1/pacientes/unificar',
      body: 'principal=1',
      idempotencyKey: randomUUID(),
    });
    expect(nonJson.status).toBe(400);
    expect(nonJson.body.error.code).toBe('VAL_INVALID_PARAM');
    const noKey = await stack.call({
      method: 'POST',
      path: '/v1/pacientes/unificar',
      body: { paciente_id_principal: 1, paciente_id_duplicado: 2 },
    });
    expect(noKey.status).toBe(400);
    expect(noKey.body.error.code).toBe('VAL_INVALID_PARAM');
  });

  test('"422 PACIENTES_UNIFICACAO_MESMO_ID; details.field is paciente_id_duplicado" (also integer vs digit string)', async () => {
    const p = await created();
    const res = await unify({ paciente_id_principal: p.id, paciente_id_duplicado: String(p.id) });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('PACIENTES_UNIFICACAO_MESMO_ID');
    expect(res.body.error.details.field).toBe('paciente_id_duplicado');
    expect((await get(`/v1/pacientes/${p.id}`)).status).toBe(200);
  });

  test('"BUSINESS_RULE (patient not found or invalid; message has cause)"', async () => {
    const p = await created();
    const res = await unify({ paciente_id_principal: p.id, paciente_id_duplicado: 987_654 });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('BUSINESS_RULE');
    expect(res.body.error.message).toMatch(/duplicado/i);
    expect((await get(`/v1/pacientes/${p.id}`)).status).toBe(200);
  });

  test('"A replay of the same key and body returns the cached 200 even after the duplicate is gone"', async () => {
    const principal = await created();
    const duplicate = await created();
    const key = randomUUID();
    const body = { paciente_id_principal: principal.id, paciente_id_duplicado: duplicate.id };
    const first = await unify(body, key);
    expect(first.status).toBe(200);
    expect((await get(`/v1/pacientes/${duplicate.id}`)).status).toBe(404);
    const replay = await unify(body, key);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotency-replay']).toBe('true');
    expect(replay.body.meta.idempotent_replay).toBe(true);
    expect(replay.body.data).toEqual(first.body.data);
    // Without the key the same body is executed again and fails: the duplicate is gone.
    const fresh = await unify(body);
    expect(fresh.status).toBe(422);
    expect(fresh.body.error.code).toBe('BUSINESS_RULE');
  });

  // Issue 20 § 9: GET and PATCH were caught by /v1/pacientes/{id} (id "unificar") and answered 400.
  describe('"Unsupported verbs on an endpoint give 405 METHOD_NOT_ALLOWED" (spec 01 § Errors): the endpoint is POST only', () => {
    for (const method of ['GET', 'PATCH', 'DELETE', 'PUT']) {
      test(`${method} /v1/pacientes/unificar → 405 with Allow: POST, signed or not (decisions G2)`, async () => {
        const body = method === 'GET' ? undefined : { paciente_id_principal: 1, paciente_id_duplicado: 2 };
        const signed = await stack.call({
          method,
          path: '/v1/pacientes/unificar',
          body,
          idempotencyKey: body ? randomUUID() : undefined,
        });
        const unsigned = await stack.raw({ method, path: '/v1/pacientes/unificar' });
        for (const res of [signed, unsigned]) {
          expect(res.status, JSON.stringify(res.body)).toBe(405);
          expect(res.body.data).toBeNull();
          expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
          expect(res.body.error.details.metodos_aceitos).toEqual(['POST']);
          expect(res.headers.allow).toBe('POST');
        }
      });
    }

    test('the id routes keep their own answers: a word as id is still 400 naming id, a real id still reads', async () => {
      expect400(await get('/v1/pacientes/unificado'), 'id');
      expect400(await patch('unificar2', { telefone: '1133334444' }), 'id');
      const p = await created();
      expect((await get(`/v1/pacientes/${p.id}`)).status).toBe(200);
    });
  });
});

describe('backend failures (own stack with a 1.5 s backend timeout)', () => {
  let slow: TestStack;
  beforeAll(async () => {
    slow = await startTestStack(
      {},
      {
        configure: (config) => {
          config.backend.timeoutMs = 1500;
        },
      },
    );
  });
  afterAll(async () => {
    await slow?.stop();
  });

  test('unify: "503" on a backend failure and "504 SERVICE_TIMEOUT" when the backend does not answer in time', async () => {
    const admin = backendAdmin(slow);
    const body = { paciente_id_principal: 1, paciente_id_duplicado: 2 };
    const send = () =>
      slow.call({ method: 'POST', path: '/v1/pacientes/unificar', body, idempotencyKey: randomUUID() });
    expect(
      (await admin('POST', '/admin/faults', { route: 'POST /tenants/*/pacientes/unificar', kind: 'http500' })).status,
    ).toBe(201);
    const failed = await send();
    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('SERVICE_UNAVAILABLE');
    await admin('DELETE', '/admin/faults');
    expect(
      (await admin('POST', '/admin/faults', { route: 'POST /tenants/*/pacientes/unificar', kind: 'hang' })).status,
    ).toBe(201);
    const timedOut = await send();
    expect(timedOut.status).toBe(504);
    expect(timedOut.body.error.code).toBe('SERVICE_TIMEOUT');
    await admin('DELETE', '/admin/faults');
  });
});
