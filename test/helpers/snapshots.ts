import { createHash } from 'node:crypto';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import * as tar from 'tar-stream';
import { request } from 'undici';
import { createS3Client } from '../../shared-node/s3-client.ts';
import type { TestStack } from './stack.ts';

/**
 * A logical dump of a clinic's backend database: every ordinary table's rows, each row as JSON, sorted.
 * `rewrite` maps object keys `<from>/…` to `<to>/…` (a copy in another slug holds its own keys). Left out, as
 * a restore (and a reset) treats them: the idempotency markers (dropped whatever the copy holds; the tests
 * check that apart), the migration history (the database's own, with its own timestamps) and the name
 * search's work queue with the full-text shadow tables (the index is rebuilt from the restored rows).
 */
export function logicalDump(
  dataDir: string,
  slug: string,
  rewrite?: { from: string; to: string },
): Record<string, string[]> {
  const db = new SQLite(path.join(dataDir, 'backend', `${slug}.db`), { readonly: true, fileMustExist: true });
  try {
    const tables = db
      .prepare(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_migration%' AND name NOT LIKE '%_fila' AND name <> 'idempotency_markers' ORDER BY name",
      )
      .pluck()
      .all() as string[];
    const dump: Record<string, string[]> = {};
    for (const table of tables) {
      const rows = db.prepare(`SELECT * FROM "${table}"`).all() as Array<Record<string, unknown>>;
      dump[table] = rows
        .map((row) => {
          if (rewrite)
            for (const [k, v] of Object.entries(row))
              if (typeof v === 'string' && v.startsWith(`${rewrite.from}/`))
                row[k] = `${rewrite.to}/${v.slice(rewrite.from.length + 1)}`;
          return JSON.stringify(row);
        })
        .sort();
    }
    return dump;
  } finally {
    db.close();
  }
}

export function markerCount(dataDir: string, slug: string): number {
  const db = new SQLite(path.join(dataDir, 'backend', `${slug}.db`), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT COUNT(*) FROM idempotency_markers').pluck().get() as number;
  } finally {
    db.close();
  }
}

/** The objects under `prefix` in the stack's bucket: key (prefix stripped) and SHA-256 of the content, sorted. */
export async function storedObjects(stack: TestStack, prefix: string): Promise<Array<{ key: string; sha256: string }>> {
  const client = createS3Client({
    ...stack.config.s3.internal,
    accessKey: stack.config.s3.accessKey,
    secretKey: stack.config.s3.secretKey,
    bucket: stack.config.s3.bucket,
    region: stack.config.s3.region,
  });
  const keys: string[] = [];
  for await (const item of client.listObjectsV2(stack.config.s3.bucket, prefix, true))
    keys.push((item as { name: string }).name);
  const out = [];
  for (const key of keys.sort()) {
    const hash = createHash('sha256');
    for await (const chunk of await client.getObject(stack.config.s3.bucket, key)) hash.update(chunk as Buffer);
    out.push({ key: key.slice(prefix.length), sha256: hash.digest('hex') });
  }
  return out;
}

/** A console API or automation call with a raw body (an archive) or none; the answer's bytes and JSON. */
export async function rawCall(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer },
): Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer; json: any }> {
  const res = await request(url, {
    method: (options.method ?? 'GET') as 'GET',
    headers: {
      ...(options.body ? { 'content-type': 'application/octet-stream' } : {}),
      ...options.headers,
    },
    body: options.body,
  });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  let json: any = null;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    json = null;
  }
  return { status: res.statusCode, headers: res.headers, bytes, json };
}

/** The entries of a tar archive, by name. */
export async function readTar(archive: Buffer): Promise<Map<string, Buffer>> {
  const extract = tar.extract();
  const entries = new Map<string, Buffer>();
  const done = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const c of entry) chunks.push(c as Buffer);
      entries.set(entry.header.name, Buffer.concat(chunks));
    }
  })();
  extract.end(archive);
  await done;
  return entries;
}

/** A tar archive of these entries, in this order. */
export async function writeTar(entries: Array<[string, Buffer]>): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const read = (async () => {
    for await (const c of pack) chunks.push(c as Buffer);
  })();
  for (const [name, body] of entries)
    await new Promise<void>((resolve, reject) => pack.entry({ name }, body, (e) => (e ? reject(e) : resolve())));
  pack.finalize();
  await read;
  return Buffer.concat(chunks);
}
