import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_ANEXOS } from '../../../../contracts/schemas/prontuarios.ts';
import { fileBodyLimit, MAX_FILE_BYTES } from '../../../../server/routes/operation.ts';
import { PRONTUARIO_BODY_FILES } from '../../../../server/routes/v1/prontuarios.ts';
import { TenantFixtures } from '../../../helpers/fixtures.ts';
import type { Credentials, SignedResponse } from '../../../helpers/signed-client.ts';
import { startTestStack, type TestStack } from '../../../helpers/stack.ts';
import { gatewayRows, journalEntries } from '../../../helpers/journal.ts';

// Spec 02 § Patient records, § Patient record (prontuario); spec 01 § File redirects, § Limits
// ("Inline file size 20 MB per file ... patient record attachments"; "record attachments PDF/PNG/JPG").

let stack: TestStack;
let fx: TenantFixtures;
let seq = 0;

const PDF = (extra = 'conteudo') => Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(`${extra}\n%%EOF\n`)]);
const PNG = (size = 64) =>
  Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(size)]);
const JPG = (size = 64) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(size)]);
const b64 = (b: Buffer) => b.toString('base64');

const RECORD_KEYS = ['data_emissao', 'exibir', 'id', 'medico', 'mensagem', 'rascunho'];
const ANEXO_KEYS = ['descricao', 'extensao', 'id', 'tamanho'];

const create = (
  pacienteId: number | string,
  body: unknown,
  creds?: Credentials,
  idempotencyKey: string = randomUUID(),
) => stack.call({ method: 'POST', path: `/v1/pacientes/${pacienteId}/prontuarios`, body, idempotencyKey }, creds);
const get = (p: string, creds?: Credentials) => stack.call({ path: p }, creds);

function expect400(res: SignedResponse<any>, field: string, code = 'VAL_INVALID_PARAM') {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error.code).toBe(code);
  const fields = [res.body.error.details.field, ...(res.body.error.details.lista ?? []).map((i: any) => i.field)];
  expect(fields).toContain(field);
}
function expect404(res: SignedResponse<any>) {
  expect(res.status, res.text).toBe(404);
  expect(res.body.error).toEqual({ code: 'RES_NOT_FOUND', message: 'Recurso nao encontrado.', details: null });
}

const paciente = () => fx.paciente({ nome: `PACIENTE PRONTUARIO ${++seq}` });

let medico: number;

beforeAll(async () => {
  stack = await startTestStack();
  fx = new TenantFixtures(stack.dataDir, stack.tenantSlug);
  medico = fx.medico({ nome: 'DRA PRONTUARIO', papel_exame: 1 });
});

afterAll(async () => {
  fx?.close();
  await stack?.stop();
});

/** Follows the presigned URL as a browser would: no HMAC headers. */
async function download(location: string): Promise<Buffer> {
  const res = await fetch(location);
  expect(res.status, location).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe('POST /v1/pacientes/{id}/prontuarios', () => {
  test('"201 data: prontuario_id, anexos[]; Location: /v1/pacientes/{id}/prontuarios"; a message alone; exibir default 1; stored finished', async () => {
    const p = paciente();
    const res = await create(p, { mensagem: '<p>Retorno em <b>30 dias</b>.</p>' });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.location).toBe(`/v1/pacientes/${p}/prontuarios`);
    expect(res.headers['idempotency-replay']).toBe('false');
    expect(res.body.data).toEqual({ prontuario_id: expect.any(Number), anexos: [] });
    const list = await get(res.headers.location);
    expect(list.body.data).toEqual([
      {
        id: res.body.data.prontuario_id,
        data_emissao: expect.any(String),
        mensagem: '<p>Retorno em <b>30 dias</b>.</p>',
        exibir: true,
        rascunho: false,
        medico: null,
      },
    ]);
    expect(fx.get('prontuarios', res.body.data.prontuario_id)).toMatchObject({ rascunho: 0, paciente_id: p });
  });

  test('attachments: PDF, PNG and JPG, "data-URI prefix accepted", "descricao optional, default the name"; fetched back byte for byte through the presigned URL with no HMAC headers', async () => {
    const p = paciente();
    const files = { pdf: PDF('exame de sangue'), png: PNG(200_000), jpg: JPG(50_000) };
    const res = await create(p, {
      anexos: [
        { nome: 'resultado.pdf', base64: b64(files.pdf), descricao: 'Resultado do hemograma' },
        { nome: 'FOTO.PNG', base64: `data:image/png;base64,${b64(files.png)}` },
        { nome: 'raio-x.jpg', base64: b64(files.jpg), descricao: '' },
      ],
      exibir: 0,
    });
    expect(res.status, res.text).toBe(201);
    const anexos = res.body.data.anexos;
    expect(anexos).toEqual([
      { id: expect.any(Number), descricao: 'Resultado do hemograma', extensao: 'PDF', tamanho: files.pdf.length },
      { id: expect.any(Number), descricao: 'FOTO.PNG', extensao: 'PNG', tamanho: files.png.length },
      { id: expect.any(Number), descricao: 'raio-x.jpg', extensao: 'JPG', tamanho: files.jpg.length },
    ]);
    for (const [anexo, bytes] of [
      [anexos[0], files.pdf],
      [anexos[1], files.png],
      [anexos[2], files.jpg],
    ] as const) {
      const redirect = await get(`/v1/pacientes/${p}/prontuarios/anexos/${anexo.id}/url`);
      expect(redirect.status, redirect.text).toBe(302);
      expect((await download(redirect.headers.location)).equals(bytes)).toBe(true);
    }
  });

  test('"At least one of message or attachments"; a message "counts when longer than 3 chars"', async () => {
    const p = paciente();
    expect400(await create(p, {}), 'mensagem');
    expect400(await create(p, { mensagem: 'abc' }), 'mensagem');
    expect400(await create(p, { mensagem: '   abc   ' }), 'mensagem');
    expect400(await create(p, { mensagem: 'ok', anexos: [] }), 'mensagem');
    expect400(await create(p, { mensagem: null, anexos: null }), 'mensagem');
    expect((await create(p, { mensagem: ' abcd ' })).status).toBe(201);
    // A short message next to an attachment: the attachment is the record.
    const withFile = await create(p, { mensagem: 'ok', anexos: [{ nome: 'a.pdf', base64: b64(PDF()) }] });
    expect(withFile.status, withFile.text).toBe(201);
    const list = (await get(`/v1/pacientes/${p}/prontuarios`)).body.data;
    expect(list.find((r: any) => r.id === withFile.body.data.prontuario_id).mensagem).toBe('');
    expect400(await create(p, { mensagem: 42 }), 'mensagem');
    expect400(await create(p, { mensagem: 'x'.repeat(200_001) }), 'mensagem');
  });

  test('"PDF/PNG/JPG ... extension defines type": any other extension is a 400 naming the file; nome and base64 are required', async () => {
    const p = paciente();
    for (const nome of ['virus.exe', 'foto.jpeg', 'foto.gif', 'sem-extensao', 'documento.pdf.txt']) {
      const res = await create(p, { anexos: [{ nome, base64: b64(PDF()) }] });
      expect400(res, 'anexos.0.nome');
      expect(res.body.error.message).toContain('PDF, PNG, JPG');
    }
    expect400(await create(p, { anexos: [{ base64: b64(PDF()) }] }), 'anexos.0.nome');
    expect400(await create(p, { anexos: [{ nome: '   ', base64: b64(PDF()) }] }), 'anexos.0.nome');
    expect400(await create(p, { anexos: [{ nome: 'a.pdf' }] }), 'anexos.0.base64');
    for (const bad of ['', '@@@@', 'a', 'QUJD RA==', 'data:application/pdf;base64,', 'QUJD\nRA=='])
      expect400(await create(p, { anexos: [{ nome: 'a.pdf', base64: bad }] }), 'anexos.0.base64');
    expect400(await create(p, { anexos: [{ nome: 'a.pdf', base64: b64(PDF()), tipo: 'PDF' }] }), 'anexos.0.tipo');
    expect400(
      await create(p, { anexos: [{ nome: 'a.pdf', base64: b64(PDF()), descricao: 'x'.repeat(256) }] }),
      'anexos.0.descricao',
    );
    expect400(await create(p, { anexos: { nome: 'a.pdf', base64: b64(PDF()) } }), 'anexos');
    const ok = await create(p, {
      anexos: [
        { nome: 'a.pdf', base64: b64(PDF()) },
        { nome: 'b.PdF', base64: b64(PDF()) },
      ],
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.data.anexos.map((a: any) => a.extensao)).toEqual(['PDF', 'PDF']);
    // Nothing of the refused calls was stored.
    expect((await get(`/v1/pacientes/${p}/prontuarios/anexos`)).body.meta.total).toBe(2);
  });

  test('an attachment whose content is not what its extension says: 422 VALIDATION_ERROR ("invalid attachment")', async () => {
    const res = await create(paciente(), { anexos: [{ nome: 'laudo.pdf', base64: b64(PNG()) }] });
    expect(res.status, res.text).toBe(422);
    expect(res.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'Anexo invalido: o conteudo nao e um arquivo PDF.',
      details: { field: 'anexos.0.base64' },
    });
  });

  test(`"20 MB" per decoded file: exactly ${MAX_FILE_BYTES} bytes is stored, one byte more is 400 VAL_FILE_TOO_LARGE (data-URI prefix not counted)`, async () => {
    const p = paciente();
    const big = Buffer.alloc(MAX_FILE_BYTES, 0x20);
    big.write('%PDF-1.4\n', 0);
    const atLimit = await create(p, {
      anexos: [{ nome: 'grande.pdf', base64: `data:application/pdf;base64,${b64(big)}` }],
    });
    expect(atLimit.status, atLimit.text.slice(0, 300)).toBe(201);
    expect(atLimit.body.data.anexos[0].tamanho).toBe(MAX_FILE_BYTES);
    const over = Buffer.concat([big, Buffer.from(' ')]);
    const tooLarge = await create(p, {
      mensagem: '<p>com anexo grande</p>',
      anexos: [
        { nome: 'pequeno.png', base64: b64(PNG()) },
        { nome: 'grande.pdf', base64: b64(over) },
      ],
    });
    expect400(tooLarge, 'anexos.1.base64', 'VAL_FILE_TOO_LARGE');
    expect(tooLarge.body.error.details).toMatchObject({ field: 'anexos.1.base64', limite_bytes: MAX_FILE_BYTES });
    expect((await get(`/v1/pacientes/${p}/prontuarios`)).body.meta.total).toBe(1);
  });

  test(`decision: at most ${MAX_ANEXOS} attachments per request, in a body of at most ${fileBodyLimit(PRONTUARIO_BODY_FILES)} bytes (two 20 MB files)`, async () => {
    const p = paciente();
    const one = { nome: 'a.png', base64: b64(PNG(10)) };
    expect((await create(p, { anexos: Array(MAX_ANEXOS).fill(one) })).status).toBe(201);
    expect400(await create(p, { anexos: Array(MAX_ANEXOS + 1).fill(one) }), 'anexos');
    expect(
      stack.app.operations.find((o) => o.path === '/v1/pacientes/:id/prontuarios' && o.operation.method === 'POST')!
        .operation.bodyLimit,
    ).toBe(fileBodyLimit(2));
  });

  test('"exibir integer 0|1 default 1"', async () => {
    const p = paciente();
    expect((await create(p, { mensagem: '<p>visivel</p>', exibir: 1 })).status).toBe(201);
    expect((await create(p, { mensagem: '<p>oculto</p>', exibir: 0 })).status).toBe(201);
    expect((await create(p, { mensagem: '<p>nulo</p>', exibir: null })).status).toBe(201);
    for (const exibir of [2, -1, true, '1', 0.5])
      expect400(await create(p, { mensagem: '<p>x-x-x</p>', exibir }), 'exibir');
    const list = (await get(`/v1/pacientes/${p}/prontuarios`)).body.data;
    expect(list.map((r: any) => [r.mensagem, r.exibir]).sort()).toEqual([
      ['<p>nulo</p>', true],
      ['<p>oculto</p>', false],
      ['<p>visivel</p>', true],
    ]);
  });

  test('"Blocked (400): rascunho, _via_api_chave_id, paciente_id, id, unidade_id, tipo"; any unknown field too', async () => {
    const p = paciente();
    for (const field of ['rascunho', '_via_api_chave_id', 'paciente_id', 'id', 'unidade_id', 'tipo']) {
      const res = await create(p, { mensagem: '<p>bloqueado</p>', [field]: 0 });
      expect400(res, field);
      expect(res.body.error.details.field).toBe(field);
    }
    expect400(await create(p, { mensagem: '<p>campo desconhecido</p>', titulo: 'x' }), 'titulo');
    expect((await get(`/v1/pacientes/${p}/prontuarios`)).body.meta.total).toBe(0);
  });

  test('"404 RES_NOT_FOUND (patient)"; 400 for an id that is not a positive integer; nothing stored', async () => {
    expect404(await create(9_999_999, { mensagem: '<p>ninguem</p>', anexos: [{ nome: 'a.pdf', base64: b64(PDF()) }] }));
    expect400(await create(0, { mensagem: '<p>zero</p>' }), 'id');
    expect400(await create('abc', { mensagem: '<p>abc</p>' }), 'id');
  });

  test("the record's doctor is the key's bound doctor (no doctor filter on records)", async () => {
    const p = paciente();
    const bound = await stack.newKey({ medicoId: medico, scopes: ['prontuarios:write', 'prontuarios:read'] });
    const res = await create(p, { mensagem: '<p>evolucao</p>' }, bound);
    expect(res.status).toBe(201);
    expect((await get(`/v1/pacientes/${p}/prontuarios`)).body.data[0].medico).toEqual({
      id: medico,
      nome: 'DRA PRONTUARIO',
    });
    // Another doctor's key reads every record of the patient: records have no doctor filter.
    const other = await stack.newKey({ medicoId: fx.medico({ nome: 'OUTRO MEDICO' }), scopes: ['prontuarios:read'] });
    expect((await get(`/v1/pacientes/${p}/prontuarios`, other)).body.meta.total).toBe(1);
  });

  test('idempotency: the same key and body replays the 201 with its Location and stores nothing twice', async () => {
    const p = paciente();
    const key = randomUUID();
    const body = { mensagem: '<p>uma vez</p>', anexos: [{ nome: 'a.pdf', base64: b64(PDF()) }] };
    const first = await create(p, body, undefined, key);
    const replay = await create(p, body, undefined, key);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotency-replay']).toBe('true');
    expect(replay.headers.location).toBe(`/v1/pacientes/${p}/prontuarios`);
    expect(replay.body.data).toEqual(first.body.data);
    expect((await get(`/v1/pacientes/${p}/prontuarios`)).body.meta.total).toBe(1);
    expect((await get(`/v1/pacientes/${p}/prontuarios/anexos`)).body.meta.total).toBe(1);
    const conflict = await create(p, { ...body, mensagem: '<p>outra</p>' }, undefined, key);
    expect(conflict.status).toBe(422);
    expect(conflict.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
  });
});

describe('GET /v1/pacientes/{id}/prontuarios', () => {
  test('"Returns all records (not filtered by exibir); no attachment content"; rascunho false; newest first; pagination', async () => {
    const p = paciente();
    const at = (d: string) => `2026-0${d}T10:00:00Z`;
    const old = fx.insert('prontuarios', {
      paciente_id: p,
      medico_id: medico,
      data_emissao: at('1-10'),
      mensagem: '<p>antigo</p>',
      exibir: 0,
      criado_em: at('1-10'),
    });
    const mid = fx.insert('prontuarios', {
      paciente_id: p,
      data_emissao: at('2-10'),
      mensagem: '<p>meio</p>',
      exibir: 1,
      criado_em: at('2-10'),
    });
    // A draft written in the clinic system: not a record yet, never listed (decision).
    fx.insert('prontuarios', {
      paciente_id: p,
      data_emissao: at('3-10'),
      mensagem: '<p>rascunho</p>',
      rascunho: 1,
      criado_em: at('3-10'),
    });
    const created = await create(p, { mensagem: '<p>novo</p>', anexos: [{ nome: 'a.png', base64: b64(PNG()) }] });
    const res = await get(`/v1/pacientes/${p}/prontuarios`);
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ limit: 50, offset: 0, total: 3, has_more: false });
    expect(res.body.data.map((r: any) => r.id)).toEqual([created.body.data.prontuario_id, mid, old]);
    expect(res.body.data[2]).toEqual({
      id: old,
      data_emissao: at('1-10'),
      mensagem: '<p>antigo</p>',
      exibir: false,
      rascunho: false,
      medico: { id: medico, nome: 'DRA PRONTUARIO' },
    });
    for (const r of res.body.data) expect(Object.keys(r).sort()).toEqual(RECORD_KEYS);
    expect(res.text).not.toMatch(/rascunho<|base64|anexo|object_key|http/);
    const page = await get(`/v1/pacientes/${p}/prontuarios?limit=1&offset=1`);
    expect(page.body.data.map((r: any) => r.id)).toEqual([mid]);
    expect(page.body.meta).toMatchObject({ limit: 1, offset: 1, total: 3, has_more: true });
    for (const q of ['limit=201', 'limit=0', 'offset=-1', 'exibir=1'])
      expect400(await get(`/v1/pacientes/${p}/prontuarios?${q}`), q.split('=')[0]);
    expect404(await get('/v1/pacientes/9999999/prontuarios'));
  });
});

describe('GET /v1/pacientes/{id}/prontuarios/anexos', () => {
  test('"array of attachment metadata (never a URL or storage key); meta.total"; attachments belong to the patient, across records', async () => {
    const p = paciente();
    const r1 = await create(p, { anexos: [{ nome: 'a.pdf', base64: b64(PDF()), descricao: 'Pedido' }] });
    const r2 = await create(p, {
      mensagem: '<p>segundo</p>',
      anexos: [
        { nome: 'b.jpg', base64: b64(JPG()) },
        { nome: 'c.png', base64: b64(PNG()) },
      ],
    });
    await create(paciente(), { anexos: [{ nome: 'de-outro.pdf', base64: b64(PDF()) }] });
    const res = await get(`/v1/pacientes/${p}/prontuarios/anexos`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([...r1.body.data.anexos, ...r2.body.data.anexos]);
    for (const a of res.body.data) expect(Object.keys(a).sort()).toEqual(ANEXO_KEYS);
    expect(res.body.meta).toMatchObject({ total: 3, limit: 50, offset: 0, has_more: false });
    expect(res.text).not.toMatch(/http|object_key|bucket|clinic-files|prontuarios\/|de-outro/);
    const page = await get(`/v1/pacientes/${p}/prontuarios/anexos?limit=2&offset=2`);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta).toMatchObject({ total: 3, has_more: false });
    expect((await get(`/v1/pacientes/${paciente()}/prontuarios/anexos`)).body).toMatchObject({
      data: [],
      meta: { total: 0 },
    });
    expect404(await get('/v1/pacientes/9999999/prontuarios/anexos'));
    expect400(await get(`/v1/pacientes/${p}/prontuarios/anexos?tipo=PDF`), 'tipo');
  });
});

describe('GET /v1/pacientes/{id}/prontuarios/anexos/{anexoId}/url', () => {
  test('"302 with Location presigned URL, Cache-Control: no-store", valid 300 s, empty body; the audit log keeps metadata only', async () => {
    const p = paciente();
    const bytes = PDF('presigned');
    const anexo = (await create(p, { anexos: [{ nome: 'a.pdf', base64: b64(bytes) }] })).body.data.anexos[0];
    const res = await get(`/v1/pacientes/${p}/prontuarios/anexos/${anexo.id}/url`);
    expect(res.status).toBe(302);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toBe('');
    const url = new URL(res.headers.location);
    expect(`${url.protocol}//${url.host}`).toBe(stack.s3PublicUrl);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect((await download(res.headers.location)).equals(bytes)).toBe(true);
    // Each call presigns anew (clients must not cache the URL).
    const again = await get(`/v1/pacientes/${p}/prontuarios/anexos/${anexo.id}/url`);
    expect(again.status).toBe(302);

    const rows = await gatewayRows<{ path: string; status: number; detail: string }>(
      stack,
      'SELECT path, status, detail FROM audit_log WHERE path = ? ORDER BY id',
      `/v1/pacientes/${p}/prontuarios/anexos/${anexo.id}/url`,
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.status).toBe(302);
      expect(JSON.parse(row.detail)).toEqual({ id: anexo.id, tipo: 'anexo', expira_em_segundos: 300 });
    }
    const objectKey = fx.get('prontuario_anexos', anexo.id)!.object_key as string;
    const dump = JSON.stringify(await journalEntries(stack));
    expect(dump).not.toContain(objectKey);
    expect(dump).not.toContain('X-Amz-Signature');
  });

  test('"404 RES_NOT_FOUND (attachment nonexistent or belonging to another patient, indistinguishable)"; 400 for ids that are not positive integers', async () => {
    const owner = paciente();
    const stranger = paciente();
    const anexo = (await create(owner, { anexos: [{ nome: 'a.pdf', base64: b64(PDF()) }] })).body.data.anexos[0];
    const foreign = await get(`/v1/pacientes/${stranger}/prontuarios/anexos/${anexo.id}/url`);
    const missing = await get(`/v1/pacientes/${stranger}/prontuarios/anexos/9999999/url`);
    expect404(foreign);
    expect404(missing);
    expect(foreign.body.error).toEqual(missing.body.error);
    expect(foreign.headers.location).toBeUndefined();
    expect(Object.keys(foreign.headers).sort()).toEqual(Object.keys(missing.headers).sort());
    expect404(await get(`/v1/pacientes/9999999/prontuarios/anexos/${anexo.id}/url`));
    expect400(await get(`/v1/pacientes/${owner}/prontuarios/anexos/0/url`), 'anexoId');
    expect400(await get(`/v1/pacientes/${owner}/prontuarios/anexos/abc/url`), 'anexoId');
    expect400(await get(`/v1/pacientes/-1/prontuarios/anexos/${anexo.id}/url`), 'id');
  });

  test('"503 SERVICE_UNAVAILABLE (backend returned no URL)": an attachment whose file was never stored', async () => {
    const p = paciente();
    const id = fx.insert('prontuario_anexos', {
      paciente_id: p,
      descricao: 'Sem arquivo',
      nome_arquivo: 'x.pdf',
      extensao: 'PDF',
      tamanho: 10,
      object_key: '',
      criado_em: '2026-01-01T00:00:00Z',
    });
    const res = await get(`/v1/pacientes/${p}/prontuarios/anexos/${id}/url`);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.headers.location).toBeUndefined();
    expect(stack.backend.contractViolations).toEqual([]);
  });

  test('an attachment of the seed (shared sample object) is served like any other', async () => {
    const p = paciente();
    const id = fx.insert('prontuario_anexos', {
      paciente_id: p,
      descricao: 'Pedido medico',
      nome_arquivo: 'pedido-medico.pdf',
      extensao: 'PDF',
      tamanho: 10,
      object_key: 'seed-samples/anexo.pdf',
      criado_em: '2026-01-01T00:00:00Z',
    });
    const res = await get(`/v1/pacientes/${p}/prontuarios/anexos/${id}/url`);
    expect(res.status, res.text).toBe(302);
    const body = await download(res.headers.location);
    expect(body.subarray(0, 5).toString()).toBe('%PDF-');
  });
});

test('backend-sim answered every call of this file within the contract (response schemas exact, known codes only)', () => {
  expect(stack.backend.contractViolations).toEqual([]);
});
