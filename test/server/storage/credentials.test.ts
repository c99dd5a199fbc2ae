import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Minio from 'minio';
import { ConfigError, ephemeralConfig, loadConfig } from '../../../server/config.ts';
import { createS3Client } from '../../../shared-node/s3-client.ts';
import { startStack } from '../../../appliance/stack.ts';
import { STORAGE_CREDENTIALS_FILE } from '../../../server/secrets-files.ts';
import { loopbackStackEnv } from '../../helpers/child-stack.ts';
import { TenantFixtures } from '../../helpers/fixtures.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// Issue 20 § 3: the embedded S3 has its own secret. s3rver's published S3RVER/S3RVER pair let any local
// SigV4 client list, read, overwrite and delete the clinic files; now a pair is generated into DATA_DIR
// on first start (0600), every service uses it, the published pair is refused, production refuses a
// published secret at start, and uploaded files are 0600 in 0700 folders.

const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

/** Every file and folder under a directory, relative to it. */
function walk(dir: string): Array<{ rel: string; dir: boolean }> {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).map((e) => ({
    rel: path.relative(dir, path.join(e.parentPath, e.name)),
    dir: e.isDirectory(),
  }));
}

async function names(client: Minio.Client, bucket: string, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for await (const item of client.listObjectsV2(bucket, prefix, true)) found.push((item as { name: string }).name);
  return found;
}

describe('a stack started without S3_ACCESS_KEY/S3_SECRET_KEY', () => {
  let stack: TestStack;
  let attachmentKey = '';
  let s3Dir = '';
  const client = (accessKey: string, secretKey: string) =>
    createS3Client({
      ...stack.config.s3.internal,
      accessKey,
      secretKey,
      bucket: stack.config.s3.bucket,
      region: stack.config.s3.region,
    });

  beforeAll(async () => {
    stack = await startTestStack();
    s3Dir = path.join(stack.dataDir, 's3');
    // A record attachment uploaded through the API: backend-sim writes it to the embedded S3.
    const fx = new TenantFixtures(stack.dataDir, stack.tenantSlug);
    const paciente = fx.paciente({ nome: 'PACIENTE ARMAZENAMENTO' });
    fx.close();
    const pdf = Buffer.from('%PDF-1.4\nresultado\n%%EOF\n');
    const res = await stack.call({
      method: 'POST',
      path: `/v1/pacientes/${paciente}/prontuarios`,
      body: { anexos: [{ nome: 'resultado.pdf', base64: pdf.toString('base64') }] },
      idempotencyKey: randomUUID(),
    });
    expect(res.status, res.text).toBe(201);
    const listed = await names(
      client(stack.config.s3.accessKey, stack.config.s3.secretKey),
      stack.config.s3.bucket,
      `${stack.tenantSlug}/`,
    );
    expect(listed).toHaveLength(1);
    attachmentKey = listed[0];
  });
  afterAll(async () => stack?.stop());

  it('generates its own pair into DATA_DIR/storage.credentials (0600), not the published one, and the services use it', () => {
    const file = path.join(stack.dataDir, STORAGE_CREDENTIALS_FILE);
    expect(mode(file)).toBe('600');
    const [accessKey, secretKey] = readFileSync(file, 'utf8').trim().split(':');
    expect(accessKey).toMatch(/^[0-9A-F]{20}$/);
    expect(secretKey).toMatch(/^[0-9a-f]{40}$/);
    expect(stack.config.s3).toMatchObject({ accessKey, secretKey, credentials: 'data_dir' });
  });

  it("the running embedded S3 refuses s3rver's published S3RVER/S3RVER pair: no listing, reading, overwriting or deleting", async () => {
    const published = client('S3RVER', 'S3RVER');
    const bucket = stack.config.s3.bucket;
    await expect(names(published, bucket, `${stack.tenantSlug}/`)).rejects.toMatchObject({
      code: 'InvalidAccessKeyId',
    });
    await expect(published.getObject(bucket, attachmentKey)).rejects.toMatchObject({ code: 'InvalidAccessKeyId' });
    await expect(published.putObject(bucket, attachmentKey, Buffer.from('overwritten'))).rejects.toMatchObject({
      code: 'InvalidAccessKeyId',
    });
    await expect(published.removeObject(bucket, attachmentKey)).rejects.toMatchObject({ code: 'InvalidAccessKeyId' });
    // The attachment is intact, read with the generated pair.
    const chunks: Buffer[] = [];
    for await (const chunk of await client(stack.config.s3.accessKey, stack.config.s3.secretKey).getObject(
      bucket,
      attachmentKey,
    ))
      chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('%PDF-1.4\nresultado\n%%EOF\n');
  });

  it('the health probe and the presigner use the generated pair: /readyz storage up, the attachment downloads through its presigned URL', async () => {
    const ready = await stack.raw({ path: '/readyz' });
    expect(ready.body.data?.componentes?.storage ?? ready.body.error?.details?.componentes?.storage).toMatchObject({
      status: 'up',
    });
    const url = await stack.app.presigner.presignGet({ bucket: stack.config.s3.bucket, object_key: attachmentKey });
    expect(new URL(url).searchParams.get('X-Amz-Credential')).toMatch(new RegExp(`^${stack.config.s3.accessKey}/`));
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('%PDF-1.4\nresultado\n%%EOF\n');
  });

  it('uploaded files are 0600 and their folders 0700, the storage root included', () => {
    expect(mode(s3Dir)).toBe('700');
    const entries = walk(s3Dir);
    // The attachment itself, its metadata and checksum, under clinic-files/<tenant>/...
    expect(entries.filter((e) => !e.dir && e.rel.includes(path.basename(attachmentKey))).length).toBeGreaterThanOrEqual(
      2,
    );
    const wrong = entries
      .filter((e) => mode(path.join(s3Dir, e.rel)) !== (e.dir ? '700' : '600'))
      .map((e) => `${e.rel} ${mode(path.join(s3Dir, e.rel))}`);
    expect(wrong).toEqual([]);
  });

  it('a second start on the same DATA_DIR keeps its pair; another DATA_DIR gets another', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-s3cred-again-'));
    try {
      const first = await startStack(ephemeralConfig(dataDir));
      const pair = { accessKey: first.config.s3.accessKey, secretKey: first.config.s3.secretKey };
      await first.close();
      const second = await startStack(ephemeralConfig(dataDir));
      expect({ accessKey: second.config.s3.accessKey, secretKey: second.config.s3.secretKey }).toEqual(pair);
      await second.close();
      expect(pair.accessKey).not.toBe(stack.config.s3.accessKey);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('production refuses a published pair', () => {
  let dataDir = '';
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'gw-s3cred-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("S3_ACCESS_KEY/S3_SECRET_KEY = S3RVER (or MinIO's minioadmin) with APP_ENV=production is a configuration error naming the variable", () => {
    for (const secret of ['S3RVER', 'minioadmin']) {
      const load = () =>
        loadConfig({ DATA_DIR: dataDir, APP_ENV: 'production', S3_ACCESS_KEY: secret, S3_SECRET_KEY: secret });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(/S3_SECRET_KEY.*published default.*APP_ENV=production/);
    }
    // Development still takes an explicit pair (a warning at start), and one half alone is an error.
    expect(loadConfig({ DATA_DIR: dataDir, S3_ACCESS_KEY: 'S3RVER', S3_SECRET_KEY: 'S3RVER' }).s3.credentials).toBe(
      'environment',
    );
    expect(() => loadConfig({ DATA_DIR: dataDir, S3_ACCESS_KEY: 'only-the-key' })).toThrow(/set together/);
    expect(() => loadConfig({ DATA_DIR: dataDir, S3_ENDPOINT: 'http://127.0.0.1:9000' })).toThrow(
      /S3_ENDPOINT needs S3_ACCESS_KEY and S3_SECRET_KEY/,
    );
  });

  it('npm start (appliance/main.ts) with APP_ENV=production and the published pair exits at once with that message', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'appliance/main.ts'], {
      env: { ...loopbackStackEnv(dataDir), APP_ENV: 'production', S3_ACCESS_KEY: 'S3RVER', S3_SECRET_KEY: 'S3RVER' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code).toBe(2);
    expect(out).toMatch(/S3_SECRET_KEY is a published default/);
    expect(out).not.toMatch(/is up/);
  }, 40_000);

  it('a published pair written into DATA_DIR/storage.credentials is refused by a production start too', async () => {
    writeFileSync(path.join(dataDir, STORAGE_CREDENTIALS_FILE), 'S3RVER:S3RVER\n', { mode: 0o600 });
    await expect(startStack(ephemeralConfig(dataDir, { APP_ENV: 'production' }))).rejects.toThrow(
      /published default.*APP_ENV=production/,
    );
  });
});
