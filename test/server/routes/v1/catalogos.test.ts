import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../../helpers/stack.ts';
import { TenantFixtures } from '../../../helpers/fixtures.ts';

// Spec: 02 § Catalog items and § Catalogs (scope catalogos:read, no doctor filter, Cache-Control: private, max-age=300).
// Doctor list/detail (also catalogs) are in medicos.test.ts.

let stack: TestStack;
let fx: TenantFixtures;
const ids: Record<string, number> = {};

const get = (path: string, creds = stack.creds) => stack.call({ path }, creds);
const idsOf = (res: { body: any }) => res.body.data.map((x: any) => x.id);

function expect400(res: { status: number; body: any }, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('VAL_INVALID_PARAM');
  expect(res.body.error.details.field).toBe(field);
}

beforeAll(async () => {
  stack = await startTestStack();
  fx = new TenantFixtures(stack.dataDir, stack.tenantSlug);
  ids.raioX = fx.insert('procedimentos', {
    nome: 'RAIO X DE TORAX',
    abreviacao: 'RXT',
    codigo_tuss: '40805026',
    descricao_tuss: 'RX TORAX PA',
    requer_laudo: 1,
    possui_imagens: 1,
  });
  ids.raioMao = fx.insert('procedimentos', {
    nome: 'RAIO X DE MAO',
    abreviacao: 'RXM',
    codigo_tuss: '',
    descricao_tuss: '',
    requer_laudo: 0,
    possui_imagens: 1,
  });
  ids.ecg = fx.insert('procedimentos', { nome: 'ELETROCARDIOGRAMA', abreviacao: 'ECG', codigo_tuss: '40101010' });
  ids.inativo = fx.insert('procedimentos', { nome: 'RAIO ANTIGO', abreviacao: 'RA', ativo: 0 });
  ids.unimed = fx.insert('convenios', { nome: 'UNIMED', abreviacao: 'UNI', codigo_ans: '' });
  ids.uniPlanoA = fx.insert('planos', { convenio_id: ids.unimed, nome: 'Basico', codigo_ans: '111' });
  ids.uniPlanoB = fx.insert('planos', { convenio_id: ids.unimed, nome: 'Executivo', codigo_ans: '222', ativo: 0 });
  ids.unidas = fx.insert('convenios', { nome: 'UNIDAS', abreviacao: 'UDS' });
  ids.bradesco = fx.insert('convenios', { nome: 'BRADESCO SAUDE', abreviacao: 'BRA', ativo: 0 });
  ids.cidA = fx.insert('cids', { codigo: 'J18.9', nome: 'Pneumonia nao especificada' });
  ids.cidB = fx.insert('cids', { codigo: 'J45.0', nome: 'Asma predominantemente alergica' });
  ids.cidC = fx.insert('cids', { codigo: 'I10', nome: 'Hipertensao essencial' });
  ids.unidade = fx.insert('unidades', {
    nome: 'Unidade Centro',
    abreviacao: 'CEN',
    cnpj: '11222333000181',
    cidade: 'Campinas',
    uf: 'SP',
  });
  ids.unidade2 = fx.insert('unidades', { nome: 'Unidade Norte', abreviacao: 'NOR', ativo: 0 });
  ids.complemento = fx.insert('complementos', { nome: 'Com contraste' });
  ids.medico = fx.medico({ nome: 'ANA LAUDADORA', papel_laudo: 1 });
  ids.grupo = fx.insert('grupos_laudos', { nome: 'Radiologia' });
  fx.insert('grupos_laudos_medicos', { grupo_laudo_id: ids.grupo, medico_id: ids.medico });
  ids.grupoVazio = fx.insert('grupos_laudos', { nome: 'Cardiologia' });
});

afterAll(async () => {
  fx?.close();
  await stack?.stop();
});

test('every catalog answers Cache-Control: private, max-age=300 and needs catalogos:read', async () => {
  const readOnly = await stack.newKey({ scopes: ['catalogos:read'] });
  for (const path of [
    '/v1/procedimentos',
    '/v1/convenios',
    '/v1/cids?q=J1',
    '/v1/unidades',
    '/v1/complementos',
    '/v1/grupos-laudos',
  ]) {
    const res = await get(path, readOnly);
    expect(res.status, path).toBe(200);
    expect(res.headers['cache-control'], path).toBe('private, max-age=300');
  }
});

test('catalogs have no doctor filter: a key bound to a doctor sees the same rows', async () => {
  const bound = await stack.newKey({ scopes: ['catalogos:read'], medicoId: ids.medico });
  for (const path of ['/v1/procedimentos', '/v1/convenios', '/v1/unidades', '/v1/grupos-laudos']) {
    expect(idsOf(await get(path, bound)), path).toEqual(idsOf(await get(path)));
  }
});

describe('GET /v1/procedimentos', () => {
  test('item fields exactly as the spec; "codigo_tuss (empty if absent)"', async () => {
    const res = await get('/v1/procedimentos');
    const rx = res.body.data.find((p: any) => p.id === ids.raioX);
    expect(rx).toEqual({
      id: ids.raioX,
      nome: 'RAIO X DE TORAX',
      abreviacao: 'RXT',
      codigo_tuss: '40805026',
      descricao_tuss: 'RX TORAX PA',
      requer_laudo: true,
      possui_imagens: true,
      ativo: true,
    });
    const mao = res.body.data.find((p: any) => p.id === ids.raioMao);
    expect(mao).toMatchObject({ codigo_tuss: '', requer_laudo: false });
  });

  test('"meta has version, timestamp, limit, offset"', async () => {
    const res = await get('/v1/procedimentos?limit=2&offset=1');
    expect(res.body.meta).toMatchObject({
      version: res.headers['x-api-release'],
      limit: 2,
      offset: 1,
      total: 3,
      has_more: false,
    });
    expect(Date.parse(res.body.meta.timestamp)).not.toBeNaN();
    expect(res.body.data).toHaveLength(2);
  });

  test('"q (prefix on name, min 2 chars)"', async () => {
    expect(idsOf(await get('/v1/procedimentos?q=raio%20x'))).toEqual([ids.raioMao, ids.raioX]);
    // Prefix, not contains: "TORAX" is inside a name but does not start one.
    expect(idsOf(await get('/v1/procedimentos?q=torax'))).toEqual([]);
    expect400(await get('/v1/procedimentos?q=r'), 'q');
    expect400(await get('/v1/procedimentos?q=%20r%20'), 'q');
  });

  test('"ativo (0/1, default 1)"', async () => {
    expect(idsOf(await get('/v1/procedimentos'))).not.toContain(ids.inativo);
    expect(idsOf(await get('/v1/procedimentos?ativo=0'))).toEqual([ids.inativo]);
    expect400(await get('/v1/procedimentos?ativo=sim'), 'ativo');
  });

  test('"limit (1-200, default 50), offset"', async () => {
    expect((await get('/v1/procedimentos')).body.meta).toMatchObject({ limit: 50, offset: 0 });
    expect400(await get('/v1/procedimentos?limit=201'), 'limit');
    expect400(await get('/v1/procedimentos?limit=0'), 'limit');
    expect400(await get('/v1/procedimentos?offset=-1'), 'offset');
    expect((await get('/v1/procedimentos?xyz=1')).status).toBe(400);
  });
});

describe('GET /v1/convenios', () => {
  test('"insurers with nested planos[] in one call"; "planos[] always present, each {id, nome, codigo_ans, ativo}"', async () => {
    const res = await get('/v1/convenios');
    expect(res.status).toBe(200);
    const unimed = res.body.data.find((c: any) => c.id === ids.unimed);
    expect(unimed).toEqual({
      id: ids.unimed,
      nome: 'UNIMED',
      abreviacao: 'UNI',
      codigo_ans: '',
      ativo: true,
      planos: [
        { id: ids.uniPlanoA, nome: 'Basico', codigo_ans: '111', ativo: true },
        { id: ids.uniPlanoB, nome: 'Executivo', codigo_ans: '222', ativo: false },
      ],
    });
    expect(res.body.data.find((c: any) => c.id === ids.unidas).planos).toEqual([]);
    expect(res.body.meta).toMatchObject({ limit: 50, offset: 0, total: 3, has_more: false });
  });

  test('"q (prefix, min 2)"; "ativo (accepted, no soft-delete)": no default, 0/1 filters on the flag', async () => {
    expect(idsOf(await get('/v1/convenios?q=uni'))).toEqual([ids.unidas, ids.unimed]);
    expect400(await get('/v1/convenios?q=u'), 'q');
    expect(idsOf(await get('/v1/convenios'))).toContain(ids.bradesco);
    expect(idsOf(await get('/v1/convenios?ativo=0'))).toEqual([ids.bradesco]);
    expect400(await get('/v1/convenios?ativo=2'), 'ativo');
  });
});

describe('GET /v1/cids', () => {
  test('"q REQUIRED, min 2 chars"', async () => {
    expect400(await get('/v1/cids'), 'q');
    expect400(await get('/v1/cids?q=J'), 'q');
  });

  test('decision: items {id, codigo, nome}; q matches a code prefix (dot optional) or a name', async () => {
    const byCode = await get('/v1/cids?q=j18');
    expect(byCode.body.data).toEqual([{ id: ids.cidA, codigo: 'J18.9', nome: 'Pneumonia nao especificada' }]);
    expect(idsOf(await get('/v1/cids?q=J189'))).toEqual([ids.cidA]);
    expect(idsOf(await get('/v1/cids?q=asma'))).toEqual([ids.cidB]);
    expect((await get('/v1/cids?q=J4')).body.meta).toMatchObject({ total: 1, limit: 50, offset: 0 });
  });
});

describe('units, complements, report groups (item fields decided: docs/api/catalogos.md)', () => {
  test('GET /v1/unidades: {id, nome, abreviacao, cidade, uf, ativo}, whole list; never the CNPJ', async () => {
    const res = await get('/v1/unidades');
    expect(res.body.data).toEqual([
      { id: ids.unidade, nome: 'Unidade Centro', abreviacao: 'CEN', cidade: 'Campinas', uf: 'SP', ativo: true },
      { id: ids.unidade2, nome: 'Unidade Norte', abreviacao: 'NOR', cidade: '', uf: '', ativo: false },
    ]);
    expect(res.body.meta).toMatchObject({ total: 2, version: res.headers['x-api-release'] });
  });

  test('GET /v1/complementos: {id, nome, ativo}', async () => {
    const res = await get('/v1/complementos');
    expect(res.body.data).toEqual([{ id: ids.complemento, nome: 'Com contraste', ativo: true }]);
  });

  test('GET /v1/grupos-laudos: {id, nome, ativo, medicos[{id, nome}]}', async () => {
    const res = await get('/v1/grupos-laudos');
    expect(res.body.data).toEqual([
      { id: ids.grupoVazio, nome: 'Cardiologia', ativo: true, medicos: [] },
      { id: ids.grupo, nome: 'Radiologia', ativo: true, medicos: [{ id: ids.medico, nome: 'ANA LAUDADORA' }] },
    ]);
  });

  test('these catalogs take no query parameters (whitelist: 400)', async () => {
    for (const path of ['/v1/unidades?ativo=1', '/v1/complementos?limit=10', '/v1/grupos-laudos?q=ra']) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code).toBe('VAL_INVALID_PARAM');
    }
  });
});

test('catalogs are read-only: other verbs give 405 METHOD_NOT_ALLOWED', async () => {
  const res = await stack.call({
    method: 'POST',
    path: '/v1/procedimentos',
    body: { nome: 'x' },
    idempotencyKey: 'k1',
  });
  expect(res.status).toBe(405);
  expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
});
