import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LAUDO_BLOCKED_FIELDS } from '../../../../contracts/schemas/laudos.ts';
import { startTestStack, type TestStack } from '../../../helpers/stack.ts';
import { TenantFixtures } from '../../../helpers/fixtures.ts';
import type { Credentials } from '../../../helpers/signed-client.ts';
import { ConsoleClient } from '../../admin/console-client.ts';
import { ensureOperator } from '../../../../server/operators/index.ts';
import { gatewayRows } from '../../../helpers/journal.ts';

// Spec 02 § Report (laudo), § Reports (GET list, GET detail, file redirect), § POST /v1/exames/{id}/laudo,
// § Report status of an exam; spec 01 § Doctor auto-filter (AMPLIADO), § File redirects.

let stack: TestStack;
let fx: TenantFixtures;

const get = (path: string, creds?: Credentials) => stack.call({ path }, creds);
const ingest = (exameId: number, body: unknown, creds?: Credentials, idempotencyKey: string = randomUUID()) =>
  stack.call({ method: 'POST', path: `/v1/exames/${exameId}/laudo`, body, idempotencyKey }, creds);

const PDF_BYTES = Buffer.from('%PDF-1.7\n% laudo assinado digitalmente\n%%EOF');
const PDF = PDF_BYTES.toString('base64');
const ITEM_KEYS = [
  'id',
  'exame',
  'medico_laudo',
  'data_laudo',
  'hora_laudo',
  'assinado',
  'assinado_em',
  'tem_arquivo',
  'criado_em',
].sort();
const DETAIL_KEYS = [...ITEM_KEYS, 'assinatura', 'url_arquivo', 'atualizado_em'].sort();

const id = {} as Record<string, number>;
const r = {} as Record<string, number>;

function exame(row: Record<string, unknown>): number {
  return fx.insert('exames', {
    paciente_id: id.p1,
    procedimento_id: id.proc,
    data_realizado: '2024-06-01',
    criado_em: '2024-06-01T08:00:00Z',
    ...row,
  });
}

async function novoExame(extra: Record<string, unknown> = {}): Promise<number> {
  const res = await stack.call({
    method: 'POST',
    path: '/v1/exames',
    idempotencyKey: randomUUID(),
    body: { paciente_id: id.p1, procedimento_id: id.proc, unidade_id: id.unidade, medico_exame_id: id.drX, ...extra },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id;
}

beforeAll(async () => {
  stack = await startTestStack();
  fx = new TenantFixtures(stack.dataDir, stack.tenantSlug);
  id.p1 = fx.paciente({ nome: 'PACIENTE LAUDO UM' });
  id.p2 = fx.paciente({ nome: 'PACIENTE LAUDO DOIS' });
  id.proc = fx.insert('procedimentos', { nome: 'ULTRASSOM' });
  id.unidade = fx.insert('unidades', { nome: 'Unidade Centro' });
  id.drL = fx.medico({ nome: 'DRA LAUDADORA', papel_laudo: 1 });
  id.drX = fx.medico({ nome: 'DR EXECUTANTE', papel_exame: 1 });
  id.drY = fx.medico({ nome: 'DR AMPLO', papel_exame: 1, papel_laudo: 1 });
  id.drSemLaudo = fx.medico({ nome: 'DR SEM PAPEL LAUDO', papel_exame: 1 });
  id.cid = fx.insert('cids', { codigo: 'K80.2', nome: 'Calculose da vesicula' });

  id.exA = exame({ medico_exame_id: id.drX, data_realizado: '2024-06-01' });
  id.exB = exame({ medico_exame_id: id.drY, paciente_id: id.p2, data_realizado: '2024-06-02' });
  r.r1 = fx.insert('laudos', {
    exame_id: id.exA,
    medico_laudo_id: id.drY,
    data_laudo: '2024-06-01',
    hora_laudo: '10:00:00',
    titulo: 'TEXTO INTERNO',
    assinado: 1,
    assinado_em: '2024-06-01T10:00:00Z',
    assinatura_tipo: 'ICP-Brasil A3',
    arquivo_key: 'clinica-teste/laudos/r1.pdf',
    criado_em: '2024-06-01T10:00:00Z',
    cid_id: id.cid,
  });
  r.r2 = fx.insert('laudos', {
    exame_id: id.exB,
    medico_laudo_id: id.drL,
    data_laudo: '2024-06-02',
    assinado: 0,
    criado_em: '2024-06-02T10:00:00Z',
  });
  // An orphan report: listed with exame null, its PDF not served.
  r.r3 = fx.insert('laudos', {
    exame_id: null,
    medico_laudo_id: id.drL,
    data_laudo: '2024-06-03',
    hora_laudo: '09:30:00',
    assinado: 1,
    assinado_em: '2024-06-03T09:30:00Z',
    assinatura_tipo: 'ICP-Brasil A3',
    arquivo_key: 'clinica-teste/laudos/r3.pdf',
    criado_em: '2024-06-03T09:30:00Z',
  });
  r.excluido = fx.insert('laudos', {
    exame_id: id.exB,
    medico_laudo_id: id.drY,
    data_laudo: '2024-06-04',
    assinado: 1,
    excluido_em: '2024-06-05T00:00:00Z',
    criado_em: '2024-06-04T00:00:00Z',
  });
});

afterAll(async () => {
  fx?.close();
  await stack?.stop();
});

const idsOf = (res: { body: any }) => res.body.data.map((l: any) => l.id);

describe('GET /v1/laudos', () => {
  test('200: report list items, newest first; "orphan reports show exame: null"; pagination meta', async () => {
    const res = await get('/v1/laudos?periodo_laudo_inicio=2024-06-01&periodo_laudo_fim=2024-06-30');
    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([r.r3, r.r2, r.r1]);
    expect(res.body.meta).toMatchObject({ limit: 50, offset: 0, total: 3, has_more: false });
    for (const item of res.body.data) expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
    // An orphan's PDF is not served until it is linked to an exam (decision): no file on offer yet.
    expect(res.body.data[0]).toEqual({
      id: r.r3,
      exame: null,
      medico_laudo: { id: id.drL, nome: 'DRA LAUDADORA' },
      data_laudo: '2024-06-03',
      hora_laudo: '09:30:00',
      assinado: true,
      assinado_em: '2024-06-03T09:30:00Z',
      tem_arquivo: false,
      criado_em: '2024-06-03T09:30:00Z',
    });
    expect(res.body.data[2]).toMatchObject({
      exame: {
        id: id.exA,
        paciente: { id: id.p1, nome: 'PACIENTE LAUDO UM' },
        tipo_exame: { id: id.proc, nome: 'ULTRASSOM' },
      },
      assinado: true,
    });
    // "assinado_em (timestamp or null, only when signed)".
    expect(res.body.data[1]).toMatchObject({
      id: r.r2,
      assinado: false,
      assinado_em: null,
      tem_arquivo: false,
      hora_laudo: null,
    });
    expect(res.text).not.toMatch(/TEXTO INTERNO|K80|clinica-teste\/laudos/);
    const page = await get('/v1/laudos?periodo_laudo_inicio=2024-06-01&periodo_laudo_fim=2024-06-30&limit=2&offset=1');
    expect(idsOf(page)).toEqual([r.r2, r.r1]);
    expect(page.body.meta).toMatchObject({ limit: 2, offset: 1, total: 3, has_more: false });
  });

  test('"assinado 0|1 strict"; anything else is 400', async () => {
    const q = '/v1/laudos?periodo_laudo_fim=2024-06-30&assinado=';
    expect(idsOf(await get(`${q}1`))).toEqual([r.r3, r.r1]);
    expect(idsOf(await get(`${q}0`))).toEqual([r.r2]);
    for (const bad of ['true', '2', '', '01']) {
      const res = await get(`${q}${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.details.field).toBe('assinado');
    }
  });

  test('"periodo_laudo_inicio, periodo_laudo_fim dates inclusive"; exame_id, paciente_id, medico_laudo_id filters', async () => {
    expect(idsOf(await get('/v1/laudos?periodo_laudo_inicio=2024-06-02&periodo_laudo_fim=2024-06-02'))).toEqual([r.r2]);
    expect((await get('/v1/laudos?periodo_laudo_inicio=2024-06-03&periodo_laudo_fim=2024-06-02')).status).toBe(400);
    expect((await get('/v1/laudos?periodo_laudo_inicio=03/06/2024')).status).toBe(400);
    expect(idsOf(await get(`/v1/laudos?exame_id=${id.exA}`))).toEqual([r.r1]);
    expect(idsOf(await get(`/v1/laudos?paciente_id=${id.p2}`))).toEqual([r.r2]);
    expect(idsOf(await get(`/v1/laudos?medico_laudo_id=${id.drL}`))).toEqual([r.r3, r.r2]);
    for (const q of ['exame_id=0', 'paciente_id=x', 'medico_laudo_id=1.5', 'limit=201', 'tipo=1'])
      expect((await get(`/v1/laudos?${q}`)).status, q).toBe(400);
  });
});

describe('doctor auto-filter AMPLIADO: "report visible when its report doctor is the key\'s doctor, or when its exam satisfies the SIMPLES rule"', () => {
  test('each bound key sees exactly its reports, medico_laudo_id ignored silently', async () => {
    const cases: [number, number[]][] = [
      [id.drX, [r.r1]], // exam doctor of exA (SIMPLES), not the report doctor
      [id.drL, [r.r3, r.r2]], // report doctor, orphan included
      [id.drY, [r.r2, r.r1]], // report doctor of r1, exam doctor of exB
    ];
    for (const [medicoId, expected] of cases) {
      const key = await stack.newKey({ scopes: ['laudos:read'], medicoId });
      expect(idsOf(await get('/v1/laudos', key)), `medico ${medicoId}`).toEqual(expected);
      expect(
        idsOf(await get(`/v1/laudos?medico_laudo_id=${id.drL}`, key)),
        `medico ${medicoId} + medico_laudo_id`,
      ).toEqual(expected);
    }
  });

  test('a hidden report answers exactly like a nonexistent one (detail and file)', async () => {
    const key = await stack.newKey({ scopes: ['laudos:read'], medicoId: id.drX });
    expect((await get(`/v1/laudos/${r.r1}`, key)).status).toBe(200);
    const hidden = await get(`/v1/laudos/${r.r2}`, key);
    const missing = await get('/v1/laudos/999999', key);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error).toEqual({ code: 'RES_NOT_FOUND', message: expect.any(String), details: null });
    expect(hidden.body.error).toEqual(missing.body.error);
    const hiddenFile = await get(`/v1/laudos/${r.r3}/arquivo`, key);
    expect(hiddenFile.status).toBe(404);
    expect(hiddenFile.body.error).toEqual(missing.body.error);
  });
});

describe('GET /v1/laudos/{id}', () => {
  test('200: detail adds assinatura ({tipo} or null), url_arquivo and atualizado_em; never text, raw path, cid, signature hash', async () => {
    const signed = await get(`/v1/laudos/${r.r1}`);
    expect(signed.status).toBe(200);
    expect(Object.keys(signed.body.data).sort()).toEqual(DETAIL_KEYS);
    expect(signed.body.data).toMatchObject({
      assinatura: { tipo: 'ICP-Brasil A3' },
      url_arquivo: `/v1/laudos/${r.r1}/arquivo`,
      atualizado_em: null,
    });
    expect(signed.body.data.assinatura).toEqual({ tipo: 'ICP-Brasil A3' });
    expect(signed.text).not.toMatch(/TEXTO INTERNO|K80|clinica-teste\/laudos|hash/);
    const unsigned = await get(`/v1/laudos/${r.r2}`);
    expect(unsigned.body.data).toMatchObject({ assinado: false, assinatura: null, url_arquivo: null });
    expect((await get(`/v1/laudos/${r.r3}`)).body.data).toMatchObject({
      exame: null,
      tem_arquivo: false,
      url_arquivo: null,
      assinatura: { tipo: 'ICP-Brasil A3' },
    });
  });

  test('404 RES_NOT_FOUND for nonexistent or deleted reports', async () => {
    for (const missing of [999_999, r.excluido])
      expect((await get(`/v1/laudos/${missing}`)).body.error.code).toBe('RES_NOT_FOUND');
  });

  test('GET /v1/laudos/{id}/arquivo: "404 RES_ARQUIVO_NAO_DISPONIVEL (orphan report or PDF not yet available)"', async () => {
    for (const noFile of [r.r2, r.r3]) {
      const res = await get(`/v1/laudos/${noFile}/arquivo`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('RES_ARQUIVO_NAO_DISPONIVEL');
    }
    expect((await get('/v1/laudos/999999/arquivo')).body.error.code).toBe('RES_NOT_FOUND');
    // "no tipo parameter (a report has one PDF)".
    expect((await get(`/v1/laudos/${r.r1}/arquivo?tipo=laudo`)).status).toBe(400);
  });
});

describe('GET /v1/laudos/{id}/arquivo on seeded data', () => {
  test('a report whose PDF is a shared seed sample: 302 to its bytes; a storage fault of this clinic gives 500 RES_ARQUIVO_S3_FALHA', async () => {
    const exameId = exame({ medico_exame_id: id.drX, arquivo_laudo_key: 'seed-samples/laudo.pdf' });
    const laudoId = fx.insert('laudos', {
      exame_id: exameId,
      medico_laudo_id: id.drL,
      data_laudo: '2024-07-01',
      assinado: 1,
      assinado_em: '2024-07-01T10:00:00Z',
      assinatura_tipo: 'ICP-Brasil A3',
      arquivo_key: 'seed-samples/laudo.pdf',
      criado_em: '2024-07-01T10:00:00Z',
    });
    const ok = await get(`/v1/laudos/${laudoId}/arquivo`);
    expect(ok.status).toBe(302);
    expect((await (await fetch(ok.headers.location)).text()).startsWith('%PDF')).toBe(true);

    await ensureOperator(stack.gatewayDb.db, 'operador', 'senha-forte-do-operador');
    const console_ = new ConsoleClient(stack.gatewayUrl);
    expect((await console_.login('operador', 'senha-forte-do-operador')).status).toBe(200);
    // The sample's key names no clinic: the fault matches because the redirect presigns for the caller's clinic.
    const fault = await console_.call('POST', '/admin/api/storage-faults', { tenant: stack.tenantSlug });
    try {
      const failed = await get(`/v1/laudos/${laudoId}/arquivo`);
      expect(failed.status).toBe(500);
      expect(failed.headers.location).toBeUndefined();
      expect(failed.body.error).toEqual({ code: 'RES_ARQUIVO_S3_FALHA', message: expect.any(String), details: null });
      expect(failed.text).not.toMatch(/seed-samples|X-Amz/);
    } finally {
      await console_.call('DELETE', `/admin/api/storage-faults/${fault.body.data.id}`);
    }
    expect((await get(`/v1/laudos/${laudoId}/arquivo`)).status).toBe(302);
  });
});

describe('POST /v1/exames/{id}/laudo', () => {
  test('201: report detail with assinatura {tipo, hash: null, validacao_url: null}, Location; the exam turns ASSINADO with tem_arquivo_laudo', async () => {
    const exameId = await novoExame();
    expect((await get(`/v1/exames/${exameId}`)).body.data).toMatchObject({
      status_laudo: 'PENDENTE',
      tem_arquivo_laudo: false,
    });
    const res = await ingest(exameId, {
      medico_laudo_id: id.drL,
      arquivo: { nome: 'laudo.pdf', base64: PDF },
      referencia: 'REF-1',
      cid_id: id.cid,
    });
    expect(res.status, res.text).toBe(201);
    const l = res.body.data;
    expect(res.headers.location).toBe(`/v1/laudos/${l.id}`);
    expect(Object.keys(l).sort()).toEqual(DETAIL_KEYS);
    expect(l).toMatchObject({
      exame: {
        id: exameId,
        paciente: { id: id.p1, nome: 'PACIENTE LAUDO UM' },
        tipo_exame: { id: id.proc, nome: 'ULTRASSOM' },
      },
      medico_laudo: { id: id.drL, nome: 'DRA LAUDADORA' },
      assinado: true,
      assinado_em: expect.any(String),
      tem_arquivo: true,
      assinatura: { tipo: expect.any(String), hash: null, validacao_url: null },
      url_arquivo: `/v1/laudos/${l.id}/arquivo`,
    });
    // "Report ingest stores the report as already signed"; "titulo: default referencia or the word Laudo".
    expect(fx.get('laudos', l.id)).toMatchObject({ assinado: 1, titulo: 'REF-1', cid_id: id.cid });
    const detail = (await get(`/v1/exames/${exameId}`)).body.data;
    expect(detail).toMatchObject({
      status_laudo: 'ASSINADO',
      tem_arquivo_laudo: true,
      laudo_assinado_em: l.assinado_em,
      url_arquivo_laudo: `/v1/exames/${exameId}/arquivo?tipo=laudo`,
    });
    // "Afterwards the report is listed with tem_arquivo true and downloadable by GET /v1/laudos/{id}/arquivo".
    const listed = (await get(`/v1/laudos?exame_id=${exameId}`)).body.data;
    expect(listed).toEqual([expect.objectContaining({ id: l.id, tem_arquivo: true })]);
    for (const path of [`/v1/laudos/${l.id}/arquivo`, `/v1/exames/${exameId}/arquivo?tipo=laudo`]) {
      const redirect = await get(path);
      expect(redirect.status).toBe(302);
      expect(redirect.headers['cache-control']).toBe('no-store');
      expect(redirect.text).toBe('');
      expect(new URL(redirect.headers.location).searchParams.get('X-Amz-Expires')).toBe('300');
      const download = await fetch(redirect.headers.location);
      expect(Buffer.from(await download.arrayBuffer()).equals(PDF_BYTES)).toBe(true);
    }
    const [audit] = await gatewayRows<{ detail: string }>(
      stack,
      'SELECT detail FROM audit_log WHERE path = ? AND status = 302',
      `/v1/laudos/${l.id}/arquivo`,
    );
    expect(JSON.parse(audit.detail)).toEqual({ id: l.id, tipo: 'laudo', expira_em_segundos: 300 });
  });

  test('"data-URI prefix accepted"; titulo defaults to the word Laudo', async () => {
    const exameId = await novoExame();
    const res = await ingest(exameId, {
      medico_laudo_id: id.drY,
      arquivo: { nome: 'LAUDO.PDF', base64: `data:application/pdf;base64,${PDF}` },
    });
    expect(res.status, res.text).toBe(201);
    expect(fx.get('laudos', res.body.data.id)).toMatchObject({ titulo: 'Laudo' });
    const download = await fetch((await get(`/v1/laudos/${res.body.data.id}/arquivo`)).headers.location);
    expect(Buffer.from(await download.arrayBuffer()).equals(PDF_BYTES)).toBe(true);
  });

  test('"422 REPORT_ALREADY_EXISTS": an exam accepts one report, never overwritten', async () => {
    const exameId = await novoExame();
    const first = await ingest(exameId, { medico_laudo_id: id.drL, arquivo: { nome: 'a.pdf', base64: PDF } });
    expect(first.status).toBe(201);
    const second = await ingest(exameId, { medico_laudo_id: id.drY, arquivo: { nome: 'b.pdf', base64: PDF } });
    expect(second.status).toBe(422);
    expect(second.body.error.code).toBe('REPORT_ALREADY_EXISTS');
    expect(idsOf(await get(`/v1/laudos?exame_id=${exameId}`))).toEqual([first.body.data.id]);
  });

  test('"422 INVALID_REFERENCE": doctor without permission to report, nonexistent doctor or CID', async () => {
    const exameId = await novoExame();
    for (const body of [
      { medico_laudo_id: id.drSemLaudo, arquivo: { nome: 'a.pdf', base64: PDF } },
      { medico_laudo_id: 999_999, arquivo: { nome: 'a.pdf', base64: PDF } },
      { medico_laudo_id: id.drL, cid_id: 999_999, arquivo: { nome: 'a.pdf', base64: PDF } },
    ]) {
      const res = await ingest(exameId, body);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('INVALID_REFERENCE');
    }
    expect((await get(`/v1/exames/${exameId}`)).body.data.status_laudo).toBe('PENDENTE');
  });

  test('"404 RES_NOT_FOUND (exam)": nonexistent or deleted exam', async () => {
    const deleted = exame({ excluido_em: '2024-07-01T00:00:00Z' });
    for (const exameId of [999_999, deleted]) {
      const res = await ingest(exameId, { medico_laudo_id: id.drL, arquivo: { nome: 'a.pdf', base64: PDF } });
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ code: 'RES_NOT_FOUND', message: expect.any(String), details: null });
    }
  });

  test('"signed PDF only": another extension is 400 with the accepted values; a .pdf that is not a PDF is 422 VALIDATION_ERROR', async () => {
    const exameId = await novoExame();
    const png = await ingest(exameId, { medico_laudo_id: id.drL, arquivo: { nome: 'laudo.png', base64: PDF } });
    expect(png.status).toBe(400);
    expect(png.body.error.details.lista[0]).toMatchObject({ field: 'arquivo.nome', valores_aceitos: ['PDF'] });
    const fake = await ingest(exameId, {
      medico_laudo_id: id.drL,
      arquivo: { nome: 'laudo.pdf', base64: Buffer.from('<html>nao</html>').toString('base64') },
    });
    expect(fake.status).toBe(422);
    expect(fake.body.error.code).toBe('VALIDATION_ERROR');
  });

  test('format: medico_laudo_id and arquivo required, base64 checked, unknown fields refused', async () => {
    const exameId = await novoExame();
    const res = await ingest(exameId, { arquivo: { nome: 'a.pdf' }, extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error.details.lista.map((i: any) => i.field)).toEqual([
      'medico_laudo_id',
      'arquivo.base64',
      'extra',
    ]);
    expect(
      (await ingest(exameId, { medico_laudo_id: id.drL, arquivo: { nome: 'a.pdf', base64: '***' } })).body.error.details
        .field,
    ).toBe('arquivo.base64');
  });

  test.each(LAUDO_BLOCKED_FIELDS.map((f) => [f]))('blocked field %s: 400, nothing stored', async (field) => {
    const exameId = await novoExame();
    const res = await ingest(exameId, { medico_laudo_id: id.drL, arquivo: { nome: 'a.pdf', base64: PDF }, [field]: 0 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VAL_INVALID_PARAM',
      details: { field, lista: [{ field, msg: 'Campo bloqueado: nao pode ser enviado pela API.' }] },
    });
    expect((await get(`/v1/laudos?exame_id=${exameId}`)).body.data).toEqual([]);
  });

  test('"up to 20 MB": a PDF of 20 MB + 1 byte once decoded is 400 VAL_FILE_TOO_LARGE', async () => {
    const exameId = await novoExame();
    const big = Buffer.alloc(20 * 1024 * 1024 + 1, 0x25);
    big.write('%PDF-1.4');
    const res = await ingest(exameId, {
      medico_laudo_id: id.drL,
      arquivo: { nome: 'grande.pdf', base64: big.toString('base64') },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VAL_FILE_TOO_LARGE', details: { field: 'arquivo.base64' } });
    expect((await get(`/v1/laudos?exame_id=${exameId}`)).body.data).toEqual([]);
  });

  test('report ingest has no doctor filter: a bound key may ingest on an exam it cannot read', async () => {
    const exameId = await novoExame({ medico_exame_id: id.drY });
    const bound = await stack.newKey({ scopes: ['laudos:write', 'exames:read'], medicoId: id.drX });
    expect((await get(`/v1/exames/${exameId}`, bound)).status).toBe(404);
    const res = await ingest(exameId, { medico_laudo_id: id.drL, arquivo: { nome: 'a.pdf', base64: PDF } }, bound);
    expect(res.status).toBe(201);
  });
});
