import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type * as Minio from 'minio';
import { createS3Client, ensureBucket } from '../shared-node/s3-client.ts';
import type { BackendS3Config } from './config.ts';
import { BackendError } from './errors.ts';
import { SEED_SAMPLES } from './seed-samples.ts';

export interface StoredFile {
  object_key: string;
  tamanho: number;
  extensao: string;
}

const CONTENT_TYPES: Record<string, string> = {
  PDF: 'application/pdf',
  PNG: 'image/png',
  JPG: 'image/jpeg',
  JPEG: 'image/jpeg',
};

export function extensionOf(nome: string): string {
  const m = /\.([A-Za-z0-9]+)$/.exec(nome);
  return m ? m[1].toUpperCase() : '';
}

/** Accepts plain base64 or a data-URI (`data:application/pdf;base64,...`). */
export function decodeBase64(b64: string): Buffer {
  const comma = b64.startsWith('data:') ? b64.indexOf(',') : -1;
  return Buffer.from(comma >= 0 ? b64.slice(comma + 1) : b64, 'base64');
}

/** Writes uploaded files to S3; the database keeps only the object key. */
export class FileStore {
  private client: Minio.Client | null = null;
  private bucketReady: Promise<void> | null = null;
  private readonly samplesReady = new Set<string>();

  constructor(private readonly s3: BackendS3Config | undefined) {}

  get bucket(): string {
    if (!this.s3) throw new BackendError('INTERNAL_ERROR', 'Armazenamento de arquivos nao configurado.');
    return this.s3.bucket;
  }

  private async ready(): Promise<Minio.Client> {
    if (!this.s3) throw new BackendError('INTERNAL_ERROR', 'Armazenamento de arquivos nao configurado.');
    const region = this.s3.region ?? 'us-east-1';
    this.client ??= createS3Client({ ...this.s3, region });
    this.bucketReady ??= ensureBucket(this.client, this.s3.bucket, region).catch((err) => {
      this.bucketReady = null;
      throw err;
    });
    await this.bucketReady;
    return this.client;
  }

  /**
   * Key layout: <tenant>/<area>/<uuid>.<ext>. Uploads happen before the database write (no owner id
   * yet) so no transaction waits on S3; the original file name is kept in the database only.
   */
  async put(tenant: string, area: string, nome: string, body: Buffer): Promise<StoredFile> {
    const extensao = extensionOf(nome);
    const objectKey = `${tenant}/${area}/${randomUUID()}${extensao ? `.${extensao.toLowerCase()}` : ''}`;
    const client = await this.ready();
    await client.putObject(this.bucket, objectKey, body, body.length, {
      'Content-Type': CONTENT_TYPES[extensao] ?? 'application/octet-stream',
    });
    return { object_key: objectKey, tamanho: body.length, extensao };
  }

  /** Seeded rows share sample objects; upload one the first time it is located. */
  async locate(objectKey: string): Promise<{ bucket: string; object_key: string }> {
    const sample = SEED_SAMPLES[objectKey];
    if (sample && !this.samplesReady.has(objectKey)) {
      const client = await this.ready();
      const exists = await client.statObject(this.bucket, objectKey).then(
        () => true,
        () => false,
      );
      if (!exists)
        await client.putObject(this.bucket, objectKey, sample, sample.length, { 'Content-Type': 'application/pdf' });
      this.samplesReady.add(objectKey);
    }
    return { bucket: this.bucket, object_key: objectKey };
  }

  async read(objectKey: string): Promise<Buffer> {
    const client = await this.ready();
    const stream = await client.getObject(this.bucket, objectKey);
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  async remove(objectKeys: string[]): Promise<void> {
    if (!objectKeys.length) return;
    const client = await this.ready();
    // S3's DeleteObjects takes at most 1000 keys a request.
    for (let i = 0; i < objectKeys.length; i += 1000)
      await client.removeObjects(this.bucket, objectKeys.slice(i, i + 1000));
  }

  /** Whether files are stored at all (no S3 configured: a clinic has none). */
  get configured(): boolean {
    return this.s3 !== undefined;
  }

  /** Every object under `prefix`, by key. */
  async list(prefix: string): Promise<Array<{ key: string; size: number }>> {
    const client = await this.ready();
    const found: Array<{ key: string; size: number }> = [];
    const stream = client.listObjectsV2(this.bucket, prefix, true);
    for await (const item of stream as AsyncIterable<{ name?: string; size?: number }>)
      if (item.name) found.push({ key: item.name, size: item.size ?? 0 });
    return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** A copy inside the bucket, done by the storage server (the bytes never come here). */
  async copy(from: string, to: string): Promise<void> {
    const client = await this.ready();
    await client.copyObject(this.bucket, to, `/${this.bucket}/${from}`);
  }

  async stream(objectKey: string): Promise<Readable> {
    const client = await this.ready();
    return client.getObject(this.bucket, objectKey);
  }

  async putFrom(objectKey: string, body: Readable | Buffer, size: number): Promise<void> {
    const client = await this.ready();
    await client.putObject(this.bucket, objectKey, body, size);
  }
}
