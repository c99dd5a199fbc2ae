import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { ConsoleClient } from '../admin/console-client.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { FileStore } from '../../../backend-sim/storage.ts';
import { TenantFixtures } from '../../helpers/fixtures.ts';

// The whole stack with the locked-down embedded S3: backend-sim's uploads (its FileStore, the
// service credentials) still work, the gateway's presigner signs for S3_PUBLIC_ENDPOINT, anonymous
// access is refused, and the console API switches presign faults on and off.
let stack: TestStack;
let console_: ConsoleClient;
let files: FileStore;
let publicPort: number;

/** A free loopback port, so S3_PUBLIC_ENDPOINT can name the embedded S3's port before it starts. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

beforeAll(async () => {
  publicPort = await freePort();
  // Clients reach the storage as localhost; the services write through 127.0.0.1.
  stack = await startTestStack({ S3_PORT: String(publicPort), S3_PUBLIC_ENDPOINT: `http://localhost:${publicPort}` });
  const { config } = stack;
  files = new FileStore({
    ...config.s3.internal,
    accessKey: config.s3.accessKey,
    secretKey: config.s3.secretKey,
    bucket: config.s3.bucket,
    region: config.s3.region,
  });
  await ensureOperator(stack.gatewayDb.db, 'operador', 'correct-horse-battery');
  console_ = new ConsoleClient(stack.gatewayUrl);
  expect((await console_.login('operador', 'correct-horse-battery')).status).toBe(200);
});

afterAll(async () => {
  await stack?.stop();
});

describe('storage in the running stack', () => {
  it("backend-sim's FileStore uploads with the service credentials; the presigned public URL returns the very bytes, once", async () => {
    expect(stack.config.s3.internal.endPoint).toBe('127.0.0.1');
    expect(stack.s3PublicUrl).toBe(`http://localhost:${publicPort}`);
    const bytes = randomBytes(200_000);
    const stored = await files.put(stack.tenantSlug, 'exames', 'resultado.pdf', bytes);
    expect((await files.read(stored.object_key)).equals(bytes)).toBe(true);

    const url = await stack.app.presigner.presignGet(await files.locate(stored.object_key));
    expect(new URL(url).origin).toBe(stack.s3PublicUrl);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await fetch(url)).status).toBe(403);
  });

  it('seeded sample objects are uploaded on first locate and presigned like any file', async () => {
    const sample = await files.locate('seed-samples/laudo.pdf');
    const response = await fetch(await stack.app.presigner.presignGet(sample));
    expect(response.status).toBe(200);
    expect((await response.text()).startsWith('%PDF')).toBe(true);
  });

  it('anonymous requests to the public storage endpoint → 403', async () => {
    const stored = await files.put(stack.tenantSlug, 'laudos', 'laudo.pdf', Buffer.from('%PDF-1.4 laudo'));
    const bucket = stack.config.s3.bucket;
    for (const [method, target] of [
      ['GET', `/${bucket}/${stored.object_key}`],
      ['PUT', `/${bucket}/${stored.object_key}`],
      ['DELETE', `/${bucket}/${stored.object_key}`],
      ['GET', `/${bucket}`],
      ['GET', '/'],
    ]) {
      const response = await fetch(stack.s3PublicUrl + target, { method, body: method === 'PUT' ? 'x' : undefined });
      expect(response.status, `${method} ${target}`).toBe(403);
    }
    expect((await files.read(stored.object_key)).toString()).toBe('%PDF-1.4 laudo');
  });
});

describe('through the gateway: a patient-record attachment URL (signed HTTP, 302 to the presigned public URL)', () => {
  it('302 → Location fetched with no HMAC headers gives the very bytes once; a console storage fault turns it into 500 RES_ARQUIVO_S3_FALHA', async () => {
    const fixtures = new TenantFixtures(stack.dataDir, stack.tenantSlug);
    const pacienteId = fixtures.paciente({ nome: 'PACIENTE ARQUIVO' });
    fixtures.close();
    const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(5000)]);
    const created = await stack.call({
      method: 'POST',
      path: `/v1/pacientes/${pacienteId}/prontuarios`,
      body: { anexos: [{ nome: 'laudo-externo.pdf', base64: bytes.toString('base64') }] },
      idempotencyKey: `storage-${Date.now()}`,
    });
    expect(created.status, created.text).toBe(201);
    const anexoId = created.body.data.anexos[0].id;
    const urlPath = `/v1/pacientes/${pacienteId}/prontuarios/anexos/${anexoId}/url`;

    const redirect = await stack.call({ path: urlPath });
    expect(redirect.status).toBe(302);
    expect(redirect.text).toBe('');
    expect(redirect.headers['cache-control']).toBe('no-store');
    const location = redirect.headers.location;
    expect(new URL(location).origin).toBe(stack.s3PublicUrl);
    expect(new URL(location).searchParams.get('X-Amz-Expires')).toBe('300');
    const file = await fetch(location);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await fetch(location)).status).toBe(403);

    const fault = await console_.call('POST', '/admin/api/storage-faults', { tenant: stack.tenantSlug });
    try {
      const failed = await stack.call({ path: urlPath });
      expect(failed.status).toBe(500);
      expect(failed.headers.location).toBeUndefined();
      expect(failed.body.data).toBeNull();
      expect(failed.body.error).toMatchObject({ code: 'RES_ARQUIVO_S3_FALHA', details: null });
      expect(failed.text).not.toMatch(new RegExp(`${stack.config.s3.bucket}|${stack.tenantSlug}/|X-Amz|injected`));
    } finally {
      await console_.call('DELETE', `/admin/api/storage-faults/${fault.body.data.id}`);
    }
    expect((await stack.call({ path: urlPath })).status).toBe(302);
  });
});

describe('presign faults through the console API (/admin/api/storage-faults)', () => {
  it('switches a clinic fault on: that clinic presigns fail with RES_ARQUIVO_S3_FALHA, others do not; off again', async () => {
    await stack.createTenant('clinica-outra');
    const mine = await files.put(stack.tenantSlug, 'exames', 'a.pdf', Buffer.from('%PDF-1.4 a'));
    const other = await files.put('clinica-outra', 'exames', 'b.pdf', Buffer.from('%PDF-1.4 b'));
    const object = (key: string) => ({ bucket: stack.config.s3.bucket, object_key: key });

    const created = await console_.call('POST', '/admin/api/storage-faults', { tenant: stack.tenantSlug });
    expect(created.status).toBe(201);
    expect(created.body.error).toBeNull();
    expect(created.body.data).toEqual({
      id: expect.any(Number),
      tenant: stack.tenantSlug,
      failure_rate: 1,
      criado_em: expect.any(String),
      hits: 0,
    });

    await expect(stack.app.presigner.presignGet(object(mine.object_key))).rejects.toMatchObject({
      code: 'RES_ARQUIVO_S3_FALHA',
      status: 500,
    });
    await expect(stack.app.presigner.presignGet(object(other.object_key))).resolves.toMatch(/^http:\/\/localhost:/);
    await expect(
      stack.app.presigner.presignGet(object(other.object_key), { tenant: stack.tenantSlug }),
    ).rejects.toMatchObject({ code: 'RES_ARQUIVO_S3_FALHA' });

    const listed = await console_.call('GET', '/admin/api/storage-faults');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([{ ...created.body.data, hits: 2 }]);

    const removed = await console_.call('DELETE', `/admin/api/storage-faults/${created.body.data.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({ id: created.body.data.id, removida: true });
    expect((await console_.call('DELETE', `/admin/api/storage-faults/${created.body.data.id}`)).body.error?.code).toBe(
      'RES_NOT_FOUND',
    );
    await expect(stack.app.presigner.presignGet(object(mine.object_key))).resolves.toMatch(/^http:/);
  });

  it('the list counts every hit so far, even those whose count is still on its way to the database (PostgreSQL)', async () => {
    const mine = await files.put(stack.tenantSlug, 'exames', 'hits.pdf', Buffer.from('%PDF-1.4 hits'));
    const created = await console_.call('POST', '/admin/api/storage-faults', { tenant: stack.tenantSlug });
    try {
      const presigns = Array.from({ length: 25 }, () =>
        stack.app.presigner.presignGet({ bucket: stack.config.s3.bucket, object_key: mine.object_key }),
      );
      for (const presign of presigns) await expect(presign).rejects.toMatchObject({ code: 'RES_ARQUIVO_S3_FALHA' });
      const listed = await console_.call('GET', '/admin/api/storage-faults');
      expect(listed.body.data).toEqual([{ ...created.body.data, hits: 25 }]);
    } finally {
      await console_.call('DELETE', `/admin/api/storage-faults/${created.body.data.id}`);
    }
  });

  it('a fault for every clinic (default) with a failure rate; DELETE clears them all', async () => {
    const all = await console_.call('POST', '/admin/api/storage-faults', {});
    expect(all.status).toBe(201);
    expect(all.body.data).toMatchObject({ tenant: '*', failure_rate: 1 });
    await expect(
      stack.app.presigner.presignGet({ bucket: stack.config.s3.bucket, object_key: 'seed-samples/exame.pdf' }),
    ).rejects.toMatchObject({
      code: 'RES_ARQUIVO_S3_FALHA',
    });
    expect(
      (await console_.call('POST', '/admin/api/storage-faults', { tenant: '*', failure_rate: 0.25 })).body.data
        .failure_rate,
    ).toBe(0.25);
    const cleared = await console_.call('DELETE', '/admin/api/storage-faults');
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toEqual({ removidas: 2 });
    expect((await console_.call('GET', '/admin/api/storage-faults')).body.data).toEqual([]);
  });

  it.each([
    [{ tenant: 'nao-existe' }, 'tenant'],
    [{ failure_rate: 0 }, 'failure_rate'],
    [{ failure_rate: 1.01 }, 'failure_rate'],
    [{ failure_rate: '1' }, 'failure_rate'],
    [{ route: 'GET /x' }, 'body'],
  ])('refuses %j → 400 VAL_INVALID_PARAM on %s', async (body, field) => {
    const response = await console_.call('POST', '/admin/api/storage-faults', body);
    expect(response.status).toBe(400);
    expect(response.body.error?.code).toBe('VAL_INVALID_PARAM');
    expect(response.body.error?.details.field).toBe(field);
  });

  it('operator-only: no session → 401, no CSRF token → 403, and each switch is audited', async () => {
    expect((await console_.call('GET', '/admin/api/storage-faults', undefined, { cookie: null })).status).toBe(401);
    expect((await console_.call('POST', '/admin/api/storage-faults', {}, { csrf: null })).status).toBe(403);
    expect((await console_.call('GET', '/admin/api/storage-faults')).body.data).toEqual([]);

    const created = await console_.call('POST', '/admin/api/storage-faults', { tenant: stack.tenantSlug });
    await console_.call('DELETE', '/admin/api/storage-faults');
    (stack.app as any).auditWriter.flush();
    const rows = await stack.gatewayDb.db
      .selectFrom('audit_log')
      .selectAll()
      .where('source', '=', 'console')
      .where('path', 'like', '/admin/api/storage-faults%')
      .where('status', '<', 400)
      .orderBy('id')
      .execute();
    const actions = rows.map((row) => JSON.parse(String(row.detail)).action);
    expect(actions.slice(-2)).toEqual(['storage_fault.create', 'storage_fault.clear']);
    const createRow = rows.at(-2)!;
    expect(createRow.tenant_slug).toBe(stack.tenantSlug);
    expect(JSON.parse(String(createRow.detail))).toMatchObject({ storage_fault_id: created.body.data.id });
  });
});
