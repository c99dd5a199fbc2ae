import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type * as Minio from 'minio';
import { startEmbeddedS3, type EmbeddedS3 } from '../../../appliance/storage/embedded-s3.ts';
import { createS3Client } from '../../../shared-node/s3-client.ts';
import { Presigner, PRESIGNED_URL_SECONDS } from '../../../server/storage/presigner.ts';

// Issue 10 § 6: the embedded S3 answers only correctly signed requests; presigned URLs are checked
// for signature and expiry and are single-use (docs/decisions.md § Storage and presigned URLs).
const BUCKET = 'clinic-files';
const ACCESS_KEY = 'gateway-test';
const SECRET_KEY = randomBytes(20).toString('hex');

let dataDir: string;
let s3: EmbeddedS3;
let service: Minio.Client;
let presigner: Presigner;
let base: string;

const settings = (overrides: Partial<Parameters<typeof createS3Client>[0]> = {}) => ({
  endPoint: '127.0.0.1',
  port: s3.port,
  useSSL: false,
  accessKey: ACCESS_KEY,
  secretKey: SECRET_KEY,
  bucket: BUCKET,
  region: 'us-east-1',
  ...overrides,
});

/** Uploads with the services' own credentials, as backend-sim's FileStore does. */
async function upload(key: string, bytes: Buffer): Promise<void> {
  await service.putObject(BUCKET, key, bytes, bytes.length, { 'Content-Type': 'application/pdf' });
}

const exists = (key: string) =>
  service.statObject(BUCKET, key).then(
    () => true,
    () => false,
  );

/** A plain client: no HMAC headers, no SigV4 header, just the URL. */
async function plainGet(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
}

/** One hex character of X-Amz-Signature changed. */
function tamperSignature(url: string): string {
  const parsed = new URL(url);
  const signature = parsed.searchParams.get('X-Amz-Signature')!;
  const flipped = (signature[10] === '0' ? '1' : '0') + signature.slice(11);
  parsed.searchParams.set('X-Amz-Signature', signature.slice(0, 10) + flipped);
  expect(parsed.searchParams.get('X-Amz-Signature')).not.toBe(signature);
  expect(parsed.searchParams.get('X-Amz-Signature')).toHaveLength(64);
  return parsed.toString();
}

const s3ErrorCode = (body: Buffer) => /<Code>([^<]+)<\/Code>/.exec(body.toString())?.[1];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'embedded-s3-test-'));
  s3 = await startEmbeddedS3({
    directory: path.join(dataDir, 's3'),
    port: 0,
    accessKey: ACCESS_KEY,
    secretKey: SECRET_KEY,
    buckets: [BUCKET],
  });
  service = createS3Client(settings());
  presigner = new Presigner(settings());
  base = `http://127.0.0.1:${s3.port}`;
});

afterAll(async () => {
  await s3?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('presigned GET URLs', () => {
  it('a presigned URL fetched with no HMAC headers returns the very bytes uploaded', async () => {
    const bytes = randomBytes(64 * 1024);
    await upload('t1/exames/a.pdf', bytes);
    const url = await presigner.presignGet({ bucket: BUCKET, object_key: 't1/exames/a.pdf' });
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe(String(PRESIGNED_URL_SECONDS));
    const response = await plainGet(url);
    expect(response.status).toBe(200);
    expect(response.body.equals(bytes)).toBe(true);
  });

  it('the same URL with one signature character changed → 403 SignatureDoesNotMatch', async () => {
    await upload('t1/exames/tampered.pdf', randomBytes(100));
    const url = await presigner.presignGet({ bucket: BUCKET, object_key: 't1/exames/tampered.pdf' });
    const response = await plainGet(tamperSignature(url));
    expect(response.status).toBe(403);
    expect(s3ErrorCode(response.body)).toBe('SignatureDoesNotMatch');
    // The untouched URL still works: the refusal is the signature's, not the object's.
    expect((await plainGet(url)).status).toBe(200);
  });

  it('another object key under a valid signature → 403', async () => {
    await upload('t1/exames/b.pdf', randomBytes(10));
    await upload('t1/exames/c.pdf', randomBytes(10));
    const url = new URL(await presigner.presignGet({ bucket: BUCKET, object_key: 't1/exames/b.pdf' }));
    url.pathname = url.pathname.replace('b.pdf', 'c.pdf');
    expect((await plainGet(url.toString())).status).toBe(403);
  });

  it('a URL past its expiry → 403 AccessDenied (presigned 301 s ago for 300 s)', async () => {
    await upload('t1/exames/expired.pdf', randomBytes(100));
    const signedAt = new Date(Date.now() - (PRESIGNED_URL_SECONDS + 1) * 1000);
    const url = await service.presignedGetObject(BUCKET, 't1/exames/expired.pdf', PRESIGNED_URL_SECONDS, {}, signedAt);
    const response = await plainGet(url);
    expect(response.status).toBe(403);
    expect(s3ErrorCode(response.body)).toBe('AccessDenied');
    expect(response.body.toString()).toMatch(/Request has expired/);
  });

  it('a URL dated in the future (stretching its life past 300 s) → 403', async () => {
    await upload('t1/exames/future.pdf', randomBytes(100));
    const url = await service.presignedGetObject(
      BUCKET,
      't1/exames/future.pdf',
      PRESIGNED_URL_SECONDS,
      {},
      new Date(Date.now() + 3600_000),
    );
    const response = await plainGet(url);
    expect(response.status).toBe(403);
    expect(response.body.toString()).toMatch(/not valid yet/);
  });

  it('a presigned URL with a malformed X-Amz-Expires → 403', async () => {
    await upload('t1/exames/nan.pdf', randomBytes(100));
    const url = new URL(await presigner.presignGet({ bucket: BUCKET, object_key: 't1/exames/nan.pdf' }));
    url.searchParams.set('X-Amz-Expires', 'never');
    expect((await plainGet(url.toString())).status).toBe(403);
  });

  it('SigV4 signs the Host: a URL presigned for 127.0.0.1 fetched as localhost → 403', async () => {
    await upload('t1/exames/host.pdf', randomBytes(100));
    const url = new URL(await presigner.presignGet({ bucket: BUCKET, object_key: 't1/exames/host.pdf' }));
    url.hostname = 'localhost';
    expect((await plainGet(url.toString())).status).toBe(403);
  });
});

describe('single-use presigned GET URLs', () => {
  it('a second GET of the same URL after a complete download → 403; a new URL works', async () => {
    const bytes = randomBytes(1000);
    await upload('t1/laudos/once.pdf', bytes);
    const url = await presigner.presignGet({ bucket: BUCKET, object_key: 't1/laudos/once.pdf' });
    expect((await plainGet(url)).body.equals(bytes)).toBe(true);
    const second = await plainGet(url);
    expect(second.status).toBe(403);
    expect(s3ErrorCode(second.body)).toBe('AccessDenied');
    expect(second.body.toString()).toMatch(/already used/);
    // Spec: re-request a new URL on retry (in the same second too: each URL carries its own nonce).
    const fresh = await presigner.presignGet({ bucket: BUCKET, object_key: 't1/laudos/once.pdf' });
    expect(fresh).not.toBe(url);
    expect((await plainGet(fresh)).body.equals(bytes)).toBe(true);
  });

  it('two URLs presigned for the same object in the same second are distinct, each usable once', async () => {
    const bytes = randomBytes(500);
    await upload('t1/laudos/twice.pdf', bytes);
    const [first, second] = await Promise.all(
      [1, 2].map(() => presigner.presignGet({ bucket: BUCKET, object_key: 't1/laudos/twice.pdf' })),
    );
    expect(new URL(first).searchParams.get('X-Amz-Signature')).not.toBe(
      new URL(second).searchParams.get('X-Amz-Signature'),
    );
    for (const url of [first, second]) {
      expect((await plainGet(url)).body.equals(bytes)).toBe(true);
      expect((await plainGet(url)).status).toBe(403);
    }
  });

  it('an interrupted download does not use the URL up: the same URL is retried whole afterwards', async () => {
    // Larger than loopback socket buffers, so the server cannot have sent it all when the client hangs up.
    const bytes = randomBytes(32 * 1024 * 1024);
    await upload('t1/exames/big.pdf', bytes);
    const url = await presigner.presignGet({ bucket: BUCKET, object_key: 't1/exames/big.pdf' });
    const interrupted = await request(url);
    expect(interrupted.statusCode).toBe(200);
    for await (const chunk of interrupted.body) {
      expect(chunk.length).toBeGreaterThan(0);
      break; // leaving the loop destroys the body: the connection is cut mid-download
    }
    const retry = await plainGet(url);
    expect(retry.status).toBe(200);
    expect(retry.body.equals(bytes)).toBe(true);
    expect((await plainGet(url)).status).toBe(403);
  });

  it('a download resumed with Range requests: partial ranges do not use the URL up, the range reaching the end does', async () => {
    const bytes = randomBytes(4096);
    await upload('t1/exames/ranged.pdf', bytes);
    const url = await presigner.presignGet({ bucket: BUCKET, object_key: 't1/exames/ranged.pdf' });
    const head = await plainGet(url, { range: 'bytes=0-999' });
    expect(head.status).toBe(206);
    expect(head.body.equals(bytes.subarray(0, 1000))).toBe(true);
    const again = await plainGet(url, { range: 'bytes=0-999' });
    expect(again.status).toBe(206);
    const rest = await plainGet(url, { range: 'bytes=1000-' });
    expect(rest.status).toBe(206);
    expect(Buffer.concat([head.body, rest.body]).equals(bytes)).toBe(true);
    expect((await plainGet(url, { range: 'bytes=0-999' })).status).toBe(403);
  });

  it('issue 20 § 5: 20 simultaneous GETs of one fresh URL → exactly one 200 with the file, 19 × 403 AccessDenied "already used"', async () => {
    // Large enough that the downloads overlap: the use used to be counted once the first one completed.
    const bytes = randomBytes(2 * 1024 * 1024);
    await upload('t1/exames/concurrent.pdf', bytes);
    const url = await presigner.presignGet({ bucket: BUCKET, object_key: 't1/exames/concurrent.pdf' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const response = await fetch(url, { signal: AbortSignal.timeout(20_000) });
        return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
      }),
    );
    const delivered = answers.filter((a) => a.status === 200);
    expect(delivered).toHaveLength(1);
    expect(delivered[0].body.equals(bytes)).toBe(true);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused.map((a) => a.status)).toEqual(Array(19).fill(403));
    for (const a of refused) {
      expect(s3ErrorCode(a.body)).toBe('AccessDenied');
      expect(a.body.toString()).toMatch(/already used/);
    }
    expect((await plainGet(url)).status).toBe(403);
  });

  it('a delivery that fails (the storage cannot read the object, before any byte is sent) frees the URL: the same URL then delivers once', async () => {
    const bytes = randomBytes(10_000);
    await upload('t1/exames/unreadable.pdf', bytes);
    const url = await presigner.presignGet({ bucket: BUCKET, object_key: 't1/exames/unreadable.pdf' });
    // s3rver keeps the object in `<key>._S3rver_object`: a folder in its place opens but cannot be read (EISDIR).
    const file = path.join(dataDir, 's3', BUCKET, 't1', 'exames', 'unreadable.pdf._S3rver_object');
    renameSync(file, `${file}.aside`);
    mkdirSync(file);
    const failed = await plainGet(url);
    expect(failed.status).toBe(500);
    expect(failed.body.equals(bytes)).toBe(false);
    rmSync(file, { recursive: true });
    renameSync(`${file}.aside`, file);
    const retry = await plainGet(url);
    expect(retry.status).toBe(200);
    expect(retry.body.equals(bytes)).toBe(true);
    expect((await plainGet(url)).status).toBe(403);
  });

  it('HEAD on a presigned GET URL → 403 (the method is signed), and it does not use the URL up', async () => {
    await upload('t1/exames/head.pdf', randomBytes(100));
    const url = await presigner.presignGet({ bucket: BUCKET, object_key: 't1/exames/head.pdf' });
    expect((await fetch(url, { method: 'HEAD' })).status).toBe(403);
    expect((await plainGet(url)).status).toBe(200);
  });
});

describe('anonymous and unsigned requests → 403', () => {
  beforeAll(async () => {
    await upload('t1/exames/anon.pdf', Buffer.from('%PDF-1.4 anon'));
  });

  it.each([
    ['GET object', 'GET', `/${BUCKET}/t1/exames/anon.pdf`],
    ['HEAD object', 'HEAD', `/${BUCKET}/t1/exames/anon.pdf`],
    ['PUT object', 'PUT', `/${BUCKET}/t1/exames/anon.pdf`],
    ['PUT new object', 'PUT', `/${BUCKET}/t1/exames/new.pdf`],
    ['DELETE object', 'DELETE', `/${BUCKET}/t1/exames/anon.pdf`],
    ['list bucket', 'GET', `/${BUCKET}`],
    ['list bucket v2 with prefix', 'GET', `/${BUCKET}?list-type=2&prefix=t1/`],
    ['list buckets', 'GET', '/'],
    ['create bucket', 'PUT', '/other-bucket'],
    ['delete bucket', 'DELETE', `/${BUCKET}`],
    ['multi-object delete', 'POST', `/${BUCKET}?delete`],
    ['multipart upload', 'POST', `/${BUCKET}/t1/exames/mp.pdf?uploads`],
    ['CORS preflight', 'OPTIONS', `/${BUCKET}/t1/exames/anon.pdf`],
  ])('%s → 403', async (_name, method, target) => {
    const body = method === 'PUT' || method === 'POST' ? 'overwritten' : undefined;
    const headers: Record<string, string> =
      method === 'OPTIONS' ? { origin: 'http://evil.example', 'access-control-request-method': 'GET' } : {};
    const response = await fetch(base + target, { method, body, headers });
    expect(response.status).toBe(403);
    if (method !== 'HEAD') expect(s3ErrorCode(Buffer.from(await response.arrayBuffer()))).toBe('AccessDenied');
  });

  it('nothing changed: the object is intact, no bucket was created', async () => {
    const stream = await service.getObject(BUCKET, 't1/exames/anon.pdf');
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('%PDF-1.4 anon');
    expect(await exists('t1/exames/new.pdf')).toBe(false);
    expect(await service.bucketExists('other-bucket')).toBe(false);
  });

  it('a SigV2 query signature or an Authorization header of another scheme → 403', async () => {
    const v2 = await fetch(
      `${base}/${BUCKET}/t1/exames/anon.pdf?AWSAccessKeyId=${ACCESS_KEY}&Expires=9999999999&Signature=abc`,
    );
    expect(v2.status).toBe(403);
    const basic = await fetch(`${base}/${BUCKET}/t1/exames/anon.pdf`, {
      headers: { authorization: 'Basic Z2F0ZXdheTp4' },
    });
    expect(basic.status).toBe(403);
    const bearer = await fetch(`${base}/${BUCKET}/t1/exames/anon.pdf`, {
      headers: { authorization: 'AWS4-HMAC-SHA256' },
    });
    expect(bearer.status).toBe(403);
  });

  it("SigV4 with a wrong secret, or with s3rver's well-known S3RVER/S3RVER pair, is refused", async () => {
    const wrongSecret = createS3Client(settings({ secretKey: 'not-the-secret' }));
    await expect(wrongSecret.statObject(BUCKET, 't1/exames/anon.pdf')).rejects.toThrow();
    await expect(wrongSecret.putObject(BUCKET, 't1/exames/anon.pdf', Buffer.from('x'))).rejects.toMatchObject({
      code: 'SignatureDoesNotMatch',
    });
    const wellKnown = createS3Client(settings({ accessKey: 'S3RVER', secretKey: 'S3RVER' }));
    await expect(wellKnown.putObject(BUCKET, 't1/exames/anon.pdf', Buffer.from('x'))).rejects.toMatchObject({
      code: 'InvalidAccessKeyId',
    });
    expect((await service.statObject(BUCKET, 't1/exames/anon.pdf')).size).toBe('%PDF-1.4 anon'.length);
  });
});

describe("the services' own SigV4 calls still work", () => {
  it('put, stat, get, list, remove with the service credentials (backend-sim FileStore path)', async () => {
    const bytes = randomBytes(3000);
    await upload('t2/prontuarios/doc.pdf', bytes);
    expect((await service.statObject(BUCKET, 't2/prontuarios/doc.pdf')).size).toBe(3000);
    const chunks: Buffer[] = [];
    for await (const chunk of await service.getObject(BUCKET, 't2/prontuarios/doc.pdf')) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    // The services' header-signed reads are not presigned URLs: they are never "used up".
    expect((await service.statObject(BUCKET, 't2/prontuarios/doc.pdf')).size).toBe(3000);
    const names: string[] = [];
    for await (const item of service.listObjectsV2(BUCKET, 't2/', true)) names.push((item as { name: string }).name);
    expect(names).toEqual(['t2/prontuarios/doc.pdf']);
    await service.removeObjects(BUCKET, ['t2/prontuarios/doc.pdf']);
    expect(await exists('t2/prontuarios/doc.pdf')).toBe(false);
    expect(await service.bucketExists(BUCKET)).toBe(true);
  });

  it('a presigned PUT (SigV4 query) from the service credentials is accepted', async () => {
    const url = await service.presignedPutObject(BUCKET, 't2/exames/presigned-put.pdf', 60);
    const response = await fetch(url, { method: 'PUT', body: 'uploaded through a presigned PUT' });
    expect(response.status).toBe(200);
    expect(await exists('t2/exames/presigned-put.pdf')).toBe(true);
  });
});
