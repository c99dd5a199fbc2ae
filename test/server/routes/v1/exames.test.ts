import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EXAME_DELETE_BLOCKED_FIELDS } from '../../../../contracts/schemas/exames.ts';
import { startTestStack, type TestStack } from '../../../helpers/stack.ts';
import { backendAdmin, TenantFixtures } from '../../../helpers/fixtures.ts';
import type { Credentials } from '../../../helpers/signed-client.ts';
import { ConsoleClient } from '../../admin/console-client.ts';
import { ensureOperator } from '../../../../server/operators/index.ts';
import { gatewayRows, journalEntries } from '../../../helpers/journal.ts';

// Spec 02 § Exams (GET list, GET detail, file redirect, DELETE), § Exam (list item), § Exam detail,
// § Exam deletion result; spec 01 § Doctor auto-filter (SIMPLES), § File redirects.

let stack: TestStack;
let fx: TenantFixtures;
let admin: ReturnType<typeof backendAdmin>;

const get = (path: string, creds?: Credentials) => stack.call({ path }, creds);
const del = (exameId: number | string, body: unknown, idempotencyKey: string = randomUUID(), creds?: Credentials) =>
  stack.call({ method: 'DELETE', path: `/v1/exames/${exameId}`, body, idempotencyKey }, creds);

const LIST_KEYS = [
  'id',
  'paciente',
  'medico_exame',
  'medico_laudo',
  'solicitante',
  'tipo_exame',
  'data_realizado',
  'status_laudo',
  'tem_arquivo_exame',
  'tem_arquivo_laudo',
  'criado_em',
].sort();
const DETAIL_KEYS = [
  ...LIST_KEYS,
  'hora_realizado',
  'laudo_assinado_em',
  'url_arquivo_exame',
  'url_arquivo_laudo',
  'atualizado_em',
].sort();

const id = {} as Record<string, number>;
/** Exams of the doctor-filter scenario, all dated 2024-05 and tagged by procedure PROC FILTRO. */
const ex = {} as Record<string, number>;
const EXAME_BYTES = Buffer.from('%PDF-1.4 bytes do exame \u0000\u00ff fim');
const LAUDO_BYTES = Buffer.from('%PDF-1.4 bytes do laudo assinado');

function exame(row: Record<string, unknown>): number {
  return fx.insert('exames', {
    paciente_id: id.p1,
    procedimento_id: id.proc,
    data_realizado: '2024-05-10',
    criado_em: '2024-05-10T10:00:00Z',
    ...row,
  });
}

async function createWithFiles(extra: Record<string, unknown> = {}): Promise<any> {
  const res = await stack.call({
    method: 'POST',
    path: '/v1/exames',
    idempotencyKey: randomUUID(),
    body: {
      paciente_id: id.p1,
      procedimento_id: id.proc2,
      unidade_id: id.unidade,
      medico_exame_id: id.drB,
      arquivos: { exames: [{ nome: 'exame.pdf', base64: EXAME_BYTES.toString('base64') }] },
      ...extra,
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

beforeAll(async () => {
  stack = await startTestStack();
  fx = new TenantFixtures(stack.dataDir, stack.tenantSlug);
  admin = backendAdmin(stack);
  id.p1 = fx.paciente({ nome: 'PACIENTE UM' });
  id.p2 = fx.paciente({ nome: 'PACIENTE DOIS' });
  id.proc = fx.insert('procedimentos', { nome: 'PROC FILTRO' });
  id.proc2 = fx.insert('procedimentos', { nome: 'PROC ARQUIVOS' });
  id.unidade = fx.insert('unidades', { nome: 'Unidade Centro' });
  id.drA = fx.medico({ nome: 'DRA FILTRADA', papel_exame: 1, papel_laudo: 1, papel_solicitante: 1 });
  id.drB = fx.medico({ nome: 'DR OUTRO', papel_exame: 1, papel_laudo: 1 });
  id.drC = fx.medico({ nome: 'DR TERCEIRO', papel_laudo: 1, papel_solicitante: 1 });
  id.cid = fx.insert('cids', { codigo: 'R10.4', nome: 'Dor abdominal' });

  // SIMPLES: drA is exam doctor of one, report doctor of another, requester of a third.
  ex.comoExecutante = exame({ medico_exame_id: id.drA, data_realizado: '2024-05-10' });
  ex.comoLaudador = exame({
    medico_exame_id: id.drB,
    medico_laudo_id: id.drA,
    paciente_id: id.p2,
    data_realizado: '2024-05-11',
  });
  ex.comoSolicitante = exame({ medico_exame_id: id.drB, medico_solicitante_id: id.drA, data_realizado: '2024-05-12' });
  ex.deOutro = exame({
    medico_exame_id: id.drB,
    medico_laudo_id: id.drC,
    medico_solicitante_id: id.drC,
    data_realizado: '2024-05-13',
  });
  ex.semMedico = exame({ data_realizado: '2024-05-14' });
  ex.excluido = exame({
    medico_exame_id: id.drA,
    data_realizado: '2024-05-15',
    excluido_em: '2024-06-01T00:00:00Z',
    excluido_motivo: 'teste',
  });
  // A report by drA on an exam of others: AMPLIADO (reports) sees it, SIMPLES (exams) does not.
  ex.laudoDeA = exame({
    medico_exame_id: id.drB,
    data_realizado: '2024-05-16',
    arquivo_laudo_key: 'clinica-teste/laudos/x.pdf',
  });
  fx.insert('laudos', {
    exame_id: ex.laudoDeA,
    medico_laudo_id: id.drA,
    data_laudo: '2024-05-16',
    assinado: 0,
    arquivo_key: 'clinica-teste/laudos/x.pdf',
    criado_em: '2024-05-16T10:00:00Z',
  });
  // status_laudo: EMITIDO (file, unsigned report) and ASSINADO (file, signed report).
  ex.assinado = exame({
    medico_exame_id: id.drB,
    data_realizado: '2024-05-17',
    arquivo_laudo_key: 'clinica-teste/laudos/y.pdf',
    cid_id: id.cid,
    observacoes: 'NOTA INTERNA',
    numero: 'N-1',
  });
  fx.insert('laudos', {
    exame_id: ex.assinado,
    medico_laudo_id: id.drB,
    data_laudo: '2024-05-17',
    assinado: 1,
    assinado_em: '2024-05-17T12:00:00Z',
    arquivo_key: 'clinica-teste/laudos/y.pdf',
    criado_em: '2024-05-17T12:00:00Z',
  });
});

afterAll(async () => {
  fx?.close();
  await stack?.stop();
});

const idsOf = (res: { body: any }) => res.body.data.map((e: any) => e.id);

describe('GET /v1/exames', () => {
  test('200: exam list items (exactly the spec fields), newest first, pagination meta', async () => {
    const res = await get(`/v1/exames?tipo_exame_id=${id.proc}&limit=3`);
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ limit: 3, offset: 0, total: 7, has_more: true });
    expect(idsOf(res)).toEqual([ex.assinado, ex.laudoDeA, ex.semMedico]);
    for (const item of res.body.data) expect(Object.keys(item).sort()).toEqual(LIST_KEYS);
    expect(res.body.data[0]).toEqual({
      id: ex.assinado,
      paciente: { id: id.p1, nome: 'PACIENTE UM' },
      medico_exame: { id: id.drB, nome: 'DR OUTRO' },
      medico_laudo: null,
      solicitante: null,
      tipo_exame: { id: id.proc, nome: 'PROC FILTRO' },
      data_realizado: '2024-05-17',
      status_laudo: 'ASSINADO',
      tem_arquivo_exame: false,
      tem_arquivo_laudo: true,
      criado_em: '2024-05-10T10:00:00Z',
    });
    const last = await get(`/v1/exames?tipo_exame_id=${id.proc}&limit=3&offset=6`);
    expect(last.body.meta).toMatchObject({ limit: 3, offset: 6, total: 7, has_more: false });
    expect(idsOf(last)).toEqual([ex.comoExecutante]);
  });

  test('"paciente_id", "tipo_exame_id" filters; a deleted exam is never listed', async () => {
    expect(idsOf(await get(`/v1/exames?paciente_id=${id.p2}`))).toEqual([ex.comoLaudador]);
    expect(idsOf(await get(`/v1/exames?tipo_exame_id=${id.proc}&limit=200`))).not.toContain(ex.excluido);
  });

  test('"periodo_realizado_inicio, periodo_realizado_fim (dates, inclusive)"', async () => {
    const res = await get(
      `/v1/exames?tipo_exame_id=${id.proc}&periodo_realizado_inicio=2024-05-11&periodo_realizado_fim=2024-05-13`,
    );
    expect(idsOf(res)).toEqual([ex.deOutro, ex.comoSolicitante, ex.comoLaudador]);
    expect(idsOf(await get(`/v1/exames?tipo_exame_id=${id.proc}&periodo_realizado_fim=2024-05-10`))).toEqual([
      ex.comoExecutante,
    ]);
    const bad = await get('/v1/exames?periodo_realizado_inicio=2024-05-13&periodo_realizado_fim=2024-05-11');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('periodo_realizado_fim');
    expect((await get('/v1/exames?periodo_realizado_inicio=2024-02-30')).body.error.details.field).toBe(
      'periodo_realizado_inicio',
    );
  });

  test('"status_laudo (PENDENTE, EMITIDO, ASSINADO)": a whitelist; anything else is 400 with the accepted values', async () => {
    const q = `/v1/exames?tipo_exame_id=${id.proc}&status_laudo=`;
    expect(idsOf(await get(`${q}ASSINADO`))).toEqual([ex.assinado]);
    expect(idsOf(await get(`${q}EMITIDO`))).toEqual([ex.laudoDeA]);
    expect(idsOf(await get(`${q}PENDENTE`))).toHaveLength(5);
    const bad = await get(`${q}assinado`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.lista[0]).toMatchObject({
      field: 'status_laudo',
      valores_aceitos: ['PENDENTE', 'EMITIDO', 'ASSINADO'],
    });
  });

  test('integers > 0 and the pagination limits; unknown parameters are 400', async () => {
    for (const q of [
      'paciente_id=0',
      'tipo_exame_id=abc',
      'medico_id=-1',
      'limit=201',
      'limit=0',
      'offset=-1',
      'cid=1',
    ]) {
      const res = await get(`/v1/exames?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.details.field).toBe(q.split('=')[0]);
    }
  });

  test('an unbound key filters by medico_id with the same rule (exam doctor, report doctor or requester)', async () => {
    expect(idsOf(await get(`/v1/exames?medico_id=${id.drA}`))).toEqual([
      ex.comoSolicitante,
      ex.comoLaudador,
      ex.comoExecutante,
    ]);
  });
});

describe('doctor auto-filter SIMPLES: "exam visible when the key\'s doctor is exam doctor, report doctor or requester"', () => {
  let boundA: Credentials;
  beforeAll(async () => {
    boundA = await stack.newKey({ scopes: ['exames:read'], medicoId: id.drA });
  });

  test('a bound key sees exactly the exams of its doctor, and nothing else', async () => {
    const res = await get('/v1/exames?limit=200', boundA);
    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([ex.comoSolicitante, ex.comoLaudador, ex.comoExecutante]);
    expect(res.body.meta.total).toBe(3);
  });

  test('"medico_id ... ignored silently (never an error)" for bound keys', async () => {
    const res = await get(`/v1/exames?medico_id=${id.drB}`, boundA);
    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([ex.comoSolicitante, ex.comoLaudador, ex.comoExecutante]);
    // The other filters still apply inside the doctor's exams.
    expect(idsOf(await get(`/v1/exames?paciente_id=${id.p2}&medico_id=${id.drB}`, boundA))).toEqual([ex.comoLaudador]);
  });

  test('"A resource outside the filter returns 404 RES_NOT_FOUND, with the same message as a nonexistent id" (detail and file)', async () => {
    for (const visible of [ex.comoExecutante, ex.comoLaudador, ex.comoSolicitante])
      expect((await get(`/v1/exames/${visible}`, boundA)).status).toBe(200);
    const hidden = await get(`/v1/exames/${ex.deOutro}`, boundA);
    const missing = await get('/v1/exames/999999', boundA);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error).toEqual({ code: 'RES_NOT_FOUND', message: expect.any(String), details: null });
    expect(hidden.body.error).toEqual(missing.body.error);
    expect(hidden.text.replace(/"request_id":"\w+","duracao_ms":\d+/, '')).toBe(
      missing.text.replace(/"request_id":"\w+","duracao_ms":\d+/, ''),
    );
    // The file of a hidden exam is as invisible as the exam, even when it has one.
    const hiddenFile = await get(`/v1/exames/${ex.assinado}/arquivo?tipo=laudo`, boundA);
    expect(hiddenFile.status).toBe(404);
    expect(hiddenFile.body.error).toEqual(missing.body.error);
    // The unbound key sees them all.
    expect((await get(`/v1/exames/${ex.deOutro}`)).status).toBe(200);
  });

  test('a bound key whose doctor has no exam sees an empty list', async () => {
    const semExames = await stack.newKey({ scopes: ['exames:read'], medicoId: id.drC + 1000 });
    const res = await get('/v1/exames', semExames);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.total).toBe(0);
  });
});

describe('GET /v1/exames/{id}', () => {
  test('200: detail fields; url_arquivo_* relative or null; never raw storage paths, cid, internal notes, upload telemetry, financial values', async () => {
    const res = await get(`/v1/exames/${ex.assinado}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(DETAIL_KEYS);
    expect(res.body.data).toMatchObject({
      id: ex.assinado,
      status_laudo: 'ASSINADO',
      hora_realizado: null,
      laudo_assinado_em: '2024-05-17T12:00:00Z',
      url_arquivo_exame: null,
      url_arquivo_laudo: `/v1/exames/${ex.assinado}/arquivo?tipo=laudo`,
      atualizado_em: null,
    });
    expect(res.text).not.toMatch(/clinica-teste\/laudos|NOTA INTERNA|R10\.4|object_key|bucket/);
    const pendente = await get(`/v1/exames/${ex.semMedico}`);
    expect(pendente.body.data).toMatchObject({
      status_laudo: 'PENDENTE',
      medico_exame: null,
      medico_laudo: null,
      solicitante: null,
      laudo_assinado_em: null,
      url_arquivo_laudo: null,
    });
  });

  test('404 RES_NOT_FOUND for nonexistent or deleted; 400 for an id that is not a positive integer', async () => {
    for (const missing of [999_999, ex.excluido]) {
      const res = await get(`/v1/exames/${missing}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ code: 'RES_NOT_FOUND', message: expect.any(String), details: null });
    }
    for (const bad of ['0', '-1', 'abc', '01']) expect((await get(`/v1/exames/${bad}`)).status).toBe(400);
  });
});

describe('GET /v1/exames/{id}/arquivo?tipo= (spec § File redirects)', () => {
  let comArquivos: any;
  beforeAll(async () => {
    comArquivos = await createWithFiles({
      medico_laudo_id: id.drC,
      arquivos: {
        exames: [{ nome: 'exame.pdf', base64: EXAME_BYTES.toString('base64') }],
        laudos: [{ nome: 'laudo.pdf', base64: LAUDO_BYTES.toString('base64') }],
      },
    });
  });

  test('302, empty body, Location = presigned URL valid 300 s, Cache-Control: no-store; fetched with no HMAC headers it returns the very bytes uploaded', async () => {
    for (const [tipo, bytes] of [
      ['exame', EXAME_BYTES],
      ['laudo', LAUDO_BYTES],
    ] as const) {
      const res = await get(`/v1/exames/${comArquivos.id}/arquivo?tipo=${tipo}`);
      expect(res.status).toBe(302);
      expect(res.text).toBe('');
      expect(res.headers['cache-control']).toBe('no-store');
      const location = new URL(res.headers.location);
      expect(location.origin).toBe(new URL(stack.s3PublicUrl).origin);
      expect(location.searchParams.get('X-Amz-Expires')).toBe('300');
      // A plain GET, as a browser or curl following the redirect would do.
      const download = await fetch(location);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
      // "single-use signature tokens": the same URL a second time is refused; a new redirect gives a new URL.
      expect((await fetch(location)).status).toBe(403);
    }
  });

  test('"500 RES_ARQUIVO_S3_FALHA" when presigning fails (a storage fault switched on in the console); no Location, nothing internal', async () => {
    await ensureOperator(stack.gatewayDb.db, 'operador', 'senha-forte-do-operador');
    const console_ = new ConsoleClient(stack.gatewayUrl);
    expect((await console_.login('operador', 'senha-forte-do-operador')).status).toBe(200);
    const fault = await console_.call('POST', '/admin/api/storage-faults', { tenant: stack.tenantSlug });
    expect(fault.status, JSON.stringify(fault.body)).toBe(201);
    try {
      for (const path of [
        `/v1/exames/${comArquivos.id}/arquivo?tipo=exame`,
        `/v1/exames/${comArquivos.id}/arquivo?tipo=laudo`,
      ]) {
        const res = await get(path);
        expect(res.status).toBe(500);
        expect(res.headers.location).toBeUndefined();
        expect(res.body.data).toBeNull();
        expect(res.body.error).toEqual({ code: 'RES_ARQUIVO_S3_FALHA', message: expect.any(String), details: null });
        expect(res.text).not.toMatch(new RegExp(`${stack.config.s3.bucket}|${stack.tenantSlug}/|X-Amz`));
      }
    } finally {
      await console_.call('DELETE', `/admin/api/storage-faults/${fault.body.data.id}`);
    }
    expect((await get(`/v1/exames/${comArquivos.id}/arquivo?tipo=exame`)).status).toBe(302);
  });

  test('the audit entry of a redirect records only metadata (id, type, expiry seconds), never the storage path or the URL', async () => {
    const res = await get(`/v1/exames/${comArquivos.id}/arquivo?tipo=exame`);
    expect(res.status).toBe(302);
    const rows = await gatewayRows(
      stack,
      'SELECT * FROM audit_log WHERE path = ? AND status = 302 ORDER BY id',
      `/v1/exames/${comArquivos.id}/arquivo?tipo=exame`,
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.parse(rows.at(-1)!.detail as string)).toEqual({
      id: comArquivos.id,
      tipo: 'exame',
      expira_em_segundos: 300,
    });
    const key = fx.get('exames', comArquivos.id)!.arquivo_exame_key as string;
    const everything = JSON.stringify(await journalEntries(stack));
    expect(everything).not.toContain(key);
    expect(everything).not.toContain('X-Amz');
  });

  test('404 RES_ARQUIVO_NAO_DISPONIVEL when the exam exists but has no such file; 404 RES_NOT_FOUND when the exam does not exist', async () => {
    const semLaudo = await createWithFiles();
    const res = await get(`/v1/exames/${semLaudo.id}/arquivo?tipo=laudo`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('RES_ARQUIVO_NAO_DISPONIVEL');
    expect(res.headers.location).toBeUndefined();
    expect((await get(`/v1/exames/${ex.semMedico}/arquivo?tipo=exame`)).body.error.code).toBe(
      'RES_ARQUIVO_NAO_DISPONIVEL',
    );
    const missing = await get('/v1/exames/999999/arquivo?tipo=exame');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('RES_NOT_FOUND');
  });

  test('"400 (tipo missing/outside whitelist)"', async () => {
    const missing = await get(`/v1/exames/${comArquivos.id}/arquivo`);
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.field).toBe('tipo');
    const outside = await get(`/v1/exames/${comArquivos.id}/arquivo?tipo=pdf`);
    expect(outside.status).toBe(400);
    expect(outside.body.error.details.lista[0]).toMatchObject({ field: 'tipo', valores_aceitos: ['exame', 'laudo'] });
  });

  test('a bound key gets the file of its own exam', async () => {
    const bound = await stack.newKey({ scopes: ['exames:read'], medicoId: id.drC });
    const res = await get(`/v1/exames/${comArquivos.id}/arquivo?tipo=laudo`, bound);
    expect(res.status).toBe(302);
  });
});

describe('DELETE /v1/exames/{id}', () => {
  const motivo = 'Exame cadastrado em duplicidade';

  test('"scope exames:delete only (exames:write does not suffice)"', async () => {
    const e = exame({});
    const writer = await stack.newKey({ scopes: ['exames:read', 'exames:write'] });
    const res = await del(e, { motivo }, randomUUID(), writer);
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({
      code: 'AUTH_INSUFFICIENT_SCOPE',
      message: expect.any(String),
      details: { escopo_necessario: 'exames:delete', escopos_da_chave: ['exames:read', 'exames:write'] },
    });
    expect(fx.get('exames', e)!.excluido_em).toBeNull();
  });

  test('200: the deletion result; "linked reports are deleted in cascade"; afterwards the exam is reported as nonexistent', async () => {
    const e = await createWithFiles({
      medico_laudo_id: id.drC,
      arquivos: { laudos: [{ nome: 'l.pdf', base64: LAUDO_BYTES.toString('base64') }] },
    });
    const laudoId = (await get(`/v1/laudos?exame_id=${e.id}`)).body.data[0].id;
    const key = randomUUID();
    const res = await del(e.id, { motivo: `  ${motivo}  ` }, key);
    expect(res.status, res.text).toBe(200);
    expect(res.headers['idempotency-replay']).toBe('false');
    expect(res.body.data).toEqual({
      id: e.id,
      status: 'EXCLUIDO',
      excluido_em: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      motivo,
      laudos_excluidos: 1,
    });
    expect(new Date(res.body.data.excluido_em).toISOString().slice(0, 19)).toBe(res.body.data.excluido_em.slice(0, 19));
    // Soft delete: the row stays with who, when and why; the report inherits the reason.
    expect(fx.get('exames', e.id)).toMatchObject({
      excluido_motivo: motivo,
      excluido_por_chave_id: stack.creds.chaveId,
    });
    expect(fx.get('laudos', laudoId)).toMatchObject({ excluido_motivo: motivo });
    expect((await get(`/v1/exames/${e.id}`)).body.error.code).toBe('RES_NOT_FOUND');
    expect((await get(`/v1/laudos/${laudoId}`)).body.error.code).toBe('RES_NOT_FOUND');
    expect((await get(`/v1/laudos?exame_id=${e.id}`)).body.data).toEqual([]);
    expect((await get(`/v1/exames/${e.id}/arquivo?tipo=exame`)).body.error.code).toBe('RES_NOT_FOUND');
    // "The key makes a timeout retry still return 200": the same key and body replay the 200.
    const replay = await del(e.id, { motivo: `  ${motivo}  ` }, key);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotency-replay']).toBe('true');
    expect(replay.body.data).toEqual(res.body.data);
    // "422 IDEMPOTENCY_CONFLICT (same key, different motivo)".
    const conflict = await del(e.id, { motivo: 'Outro motivo qualquer' }, key);
    expect(conflict.status).toBe(422);
    expect(conflict.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    // "404 NOT_FOUND (nonexistent or already deleted)" with a new key.
    const again = await del(e.id, { motivo });
    expect(again.status).toBe(404);
    expect(again.body.error).toEqual({ code: 'NOT_FOUND', message: expect.any(String), details: null });
  });

  test('404 NOT_FOUND for a nonexistent exam', async () => {
    const res = await del(999_999, { motivo });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  test('"A JSON body is mandatory": missing body, motivo outside 3-500, blocked fields are 400', async () => {
    const e = exame({});
    const noBody = await stack.call({ method: 'DELETE', path: `/v1/exames/${e}`, idempotencyKey: randomUUID() });
    expect(noBody.status).toBe(400);
    expect(noBody.body.error).toMatchObject({ code: 'VAL_INVALID_PARAM', details: { field: 'body' } });
    for (const body of [{}, { motivo: 'ab' }, { motivo: '  ab  ' }, { motivo: 'x'.repeat(501) }, { motivo: 3 }]) {
      const res = await del(e, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details.field).toBe('motivo');
    }
    expect((await del(e, { motivo: 'x'.repeat(500) })).status).toBe(200);
  });

  test.each(EXAME_DELETE_BLOCKED_FIELDS.map((f) => [f]))(
    'blocked body field %s: 400, nothing deleted',
    async (field) => {
      const e = exame({});
      const res = await del(e, { motivo, [field]: 1 });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VAL_INVALID_PARAM', details: { field } });
      expect(fx.get('exames', e)!.excluido_em).toBeNull();
    },
  );

  test('"405 for the collection path without id"', async () => {
    const res = await stack.call({
      method: 'DELETE',
      path: '/v1/exames',
      body: { motivo },
      idempotencyKey: randomUUID(),
    });
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toMatch(/GET/);
  });

  test('"409 EXAME_LAUDO_CENTRAL": the external report center issued the report; permanent refusal', async () => {
    const e = exame({ laudo_central: 1, exportado_central: 1, arquivo_laudo_key: 'clinica-teste/laudos/central.pdf' });
    const res = await del(e, { motivo });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('EXAME_LAUDO_CENTRAL');
    expect(fx.get('exames', e)!.excluido_em).toBeNull();
  });

  test('"502 BACKEND_CENTRAL_SYNC ... nothing was deleted"; "An exam exported to the external center but without a report there is deletable"', async () => {
    const e = exame({ exportado_central: 1 });
    const laudo = fx.insert('laudos', {
      exame_id: e,
      medico_laudo_id: id.drB,
      data_laudo: '2024-05-20',
      assinado: 1,
      criado_em: '2024-05-20T00:00:00Z',
    });
    await admin('PATCH', `/tenants/${stack.tenantSlug}/settings`, { central_laudos_disponivel: false });
    try {
      const key = randomUUID();
      const res = await del(e, { motivo }, key);
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('BACKEND_CENTRAL_SYNC');
      expect(fx.get('exames', e)!.excluido_em).toBeNull();
      expect(fx.get('laudos', laudo)!.excluido_em).toBeNull();
      expect((await get(`/v1/exames/${e}`)).status).toBe(200);
      await admin('PATCH', `/tenants/${stack.tenantSlug}/settings`, { central_laudos_disponivel: true });
      // The 502 is not stored under the key: the retry executes once the center answers.
      const retry = await del(e, { motivo }, key);
      expect(retry.status).toBe(200);
      expect(retry.body.data.laudos_excluidos).toBe(1);
    } finally {
      await admin('PATCH', `/tenants/${stack.tenantSlug}/settings`, { central_laudos_disponivel: true });
    }
  });

  test('"exams with internal reports, including digitally signed ones, are deletable"; no doctor filter on delete', async () => {
    const bound = await stack.newKey({ scopes: ['exames:delete'], medicoId: id.drA });
    const res = await del(ex.assinado, { motivo }, randomUUID(), bound);
    expect(res.status).toBe(200);
    expect(res.body.data.laudos_excluidos).toBe(1);
  });
});
