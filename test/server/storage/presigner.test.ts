import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedS3, type EmbeddedS3 } from '../../../appliance/storage/embedded-s3.ts';
import { createS3Client, type S3Settings } from '../../../shared-node/s3-client.ts';
import { Presigner, PRESIGNED_URL_SECONDS } from '../../../server/storage/presigner.ts';
import { StorageFaults } from '../../../server/storage/storage-faults.ts';
import envelopePlugin from '../../../server/http/envelope-plugin.ts';
import { ApiError } from '../../../server/errors.ts';

// Spec § File redirects and § Limits: presigned GET URLs valid 300 s, for the endpoint clients
// reach; a presign failure (real or injected) is 500 RES_ARQUIVO_S3_FALHA without internals.
const BUCKET = 'clinic-files';
const FAILURE = { code: 'RES_ARQUIVO_S3_FALHA', status: 500 };

let dataDir: string;
let s3: EmbeddedS3;
let internal: S3Settings;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'presigner-test-'));
  s3 = await startEmbeddedS3({
    directory: path.join(dataDir, 's3'),
    port: 0,
    accessKey: 'presigner-test',
    secretKey: 'presigner-secret',
    buckets: [BUCKET],
  });
  internal = {
    endPoint: '127.0.0.1',
    port: s3.port,
    useSSL: false,
    accessKey: 'presigner-test',
    secretKey: 'presigner-secret',
    bucket: BUCKET,
    region: 'us-east-1',
  };
  await createS3Client(internal).putObject(BUCKET, 'clinica-a/exames/x.pdf', Buffer.from('%PDF-1.4 x'));
});

afterAll(async () => {
  await s3?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('presignGet', () => {
  it('sets the expiry explicitly to 300 s (the minio client would default to 7 days) and signs the host only', async () => {
    const url = new URL(
      await new Presigner(internal).presignGet({ bucket: BUCKET, object_key: 'clinica-a/exames/x.pdf' }),
    );
    expect(PRESIGNED_URL_SECONDS).toBe(300);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(url.pathname).toBe(`/${BUCKET}/clinica-a/exames/x.pdf`);
  });

  it('presigns for the public endpoint, distinct from the internal one, without calling the storage', async () => {
    // The services write through 127.0.0.1; clients reach the same storage as localhost.
    const publicEndpoint = { ...internal, endPoint: 'localhost' };
    const url = await new Presigner(publicEndpoint).presignGet({
      bucket: BUCKET,
      object_key: 'clinica-a/exames/x.pdf',
    });
    expect(new URL(url).origin).toBe(`http://localhost:${s3.port}`);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('%PDF-1.4 x');

    // An endpoint the gateway itself cannot reach still gets a URL: presigning is local (region set).
    const unreachable = new Presigner({ ...internal, endPoint: 'files.clinic.invalid', port: 443, useSSL: true });
    const offline = new URL(await unreachable.presignGet({ bucket: BUCKET, object_key: 'clinica-a/exames/x.pdf' }));
    expect(offline.origin).toBe('https://files.clinic.invalid');
  });

  it('a real presign failure → ApiError 500 RES_ARQUIVO_S3_FALHA with a fixed message; the cause goes to onError only', async () => {
    const causes: unknown[] = [];
    const presigner = new Presigner(internal, { onError: (error) => causes.push(error) });
    const failure = presigner.presignGet({ bucket: 'X_not_a_bucket', object_key: 'clinica-a/exames/secret-path.pdf' });
    await expect(failure).rejects.toBeInstanceOf(ApiError);
    await expect(failure).rejects.toMatchObject({ ...FAILURE, details: null });
    const error = (await failure.catch((e) => e)) as ApiError;
    expect(error.message).not.toMatch(/X_not_a_bucket|secret-path|bucket/i);
    expect(String(causes[0])).toMatch(/X_not_a_bucket/);
  });
});

describe('injected presign failures (StorageFaults)', () => {
  it('a fault for every clinic fails every presign until it is removed', async () => {
    const faults = new StorageFaults();
    const presigner = new Presigner(internal, { faults });
    const fault = faults.add({ failure_rate: 1 });
    expect(fault).toMatchObject({ id: 1, tenant: '*', failure_rate: 1, hits: 0 });
    await expect(presigner.presignGet({ bucket: BUCKET, object_key: 'clinica-a/exames/x.pdf' })).rejects.toMatchObject(
      FAILURE,
    );
    await expect(presigner.presignGet({ bucket: BUCKET, object_key: 'seed-samples/exame.pdf' })).rejects.toMatchObject(
      FAILURE,
    );
    expect(faults.list()[0].hits).toBe(2);
    expect(faults.remove(fault.id)).toBe(true);
    expect(faults.remove(fault.id)).toBe(false);
    const url = await presigner.presignGet({ bucket: BUCKET, object_key: 'clinica-a/exames/x.pdf' });
    expect((await fetch(url)).status).toBe(200);
  });

  it("a tenant's fault matches its callers (scope.tenant) and its object keys, and no other clinic", async () => {
    const faults = new StorageFaults();
    const presigner = new Presigner(internal, { faults });
    faults.add({ tenant: 'clinica-a' });
    const object = { bucket: BUCKET, object_key: 'clinica-a/exames/x.pdf' };
    await expect(presigner.presignGet(object)).rejects.toMatchObject(FAILURE);
    await expect(
      presigner.presignGet({ bucket: BUCKET, object_key: 'seed-samples/exame.pdf' }, { tenant: 'clinica-a' }),
    ).rejects.toMatchObject(FAILURE);
    await expect(presigner.presignGet({ bucket: BUCKET, object_key: 'clinica-b/exames/y.pdf' })).resolves.toMatch(
      /^http:/,
    );
    await expect(presigner.presignGet({ bucket: BUCKET, object_key: 'seed-samples/exame.pdf' })).resolves.toMatch(
      /^http:/,
    );
    // The caller's tenant wins over the key's first segment.
    await expect(presigner.presignGet(object, { tenant: 'clinica-b' })).resolves.toMatch(/^http:/);
    expect(faults.clear()).toBe(1);
    expect(faults.list()).toEqual([]);
  });

  it('failure_rate is a probability: the first matching fault rolls once per presign', async () => {
    const rolls = [0.1, 0.9, 0.49, 0.5];
    const faults = new StorageFaults(() => rolls.shift()!);
    const presigner = new Presigner(internal, { faults });
    faults.add({ failure_rate: 0.5 });
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) {
      outcomes.push(
        await presigner.presignGet({ bucket: BUCKET, object_key: 'clinica-a/exames/x.pdf' }).then(
          () => 'ok',
          (e: ApiError) => e.code,
        ),
      );
    }
    expect(outcomes).toEqual(['RES_ARQUIVO_S3_FALHA', 'ok', 'RES_ARQUIVO_S3_FALHA', 'ok']);
    expect(faults.list()[0].hits).toBe(4);
    expect(() => faults.add({ failure_rate: 0 })).toThrow(RangeError);
    expect(() => faults.add({ failure_rate: 1.5 })).toThrow(RangeError);
  });

  it('through HTTP the failure is the envelope: 500, data null, RES_ARQUIVO_S3_FALHA, no bucket, key or cause', async () => {
    const faults = new StorageFaults();
    const presigner = new Presigner(internal, { faults });
    const app = Fastify();
    await app.register(envelopePlugin, { release: '1.0.0', passthroughPrefixes: [] });
    // Stands in for a file-redirect handler: presign, then 302.
    app.get('/arquivo', async (_request, reply) => {
      const location = await presigner.presignGet(
        { bucket: BUCKET, object_key: 'clinica-a/exames/x.pdf' },
        { tenant: 'clinica-a' },
      );
      return reply.status(302).header('location', location).header('cache-control', 'no-store').send();
    });
    try {
      const ok = await app.inject({ method: 'GET', url: '/arquivo' });
      expect(ok.statusCode).toBe(302);
      expect(ok.headers.location).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${s3.port}/${BUCKET}/`));

      faults.add({ tenant: 'clinica-a' });
      const failed = await app.inject({ method: 'GET', url: '/arquivo' });
      expect(failed.statusCode).toBe(500);
      expect(failed.headers.location).toBeUndefined();
      const body = failed.json();
      expect(body.data).toBeNull();
      expect(body.error).toEqual({
        code: 'RES_ARQUIVO_S3_FALHA',
        message: expect.stringMatching(/^[\x20-\x7e]+$/),
        details: null,
      });
      expect(failed.body).not.toMatch(/clinic-files|clinica-a\/exames|x\.pdf|injected|127\.0\.0\.1/);
    } finally {
      await app.close();
    }
  });
});
