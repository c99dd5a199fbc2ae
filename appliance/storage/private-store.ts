import { createRequire } from 'node:module';
import { chmod, mkdir, open } from 'node:fs/promises';
import path from 'node:path';

const require = createRequire(import.meta.url);
// s3rver's store; every file and folder it creates goes through the methods overridden below.
const FilesystemStore = require('@20minutes/s3rver/lib/stores/filesystem.js') as new (root: string) => S3rverStore;

/** The part of s3rver's FilesystemStore this subclass touches (its types are not published). */
interface S3rverStore {
  rootDirectory: string;
  getBucketPath(bucket: string): string;
  getResourcePath(bucket: string, key?: string, resource?: string): string;
  putBucket(bucket: string): Promise<unknown>;
  putObject(object: { bucket: string; key: string }): Promise<unknown>;
  putContent(objectPath: string, content: unknown): Promise<unknown>;
  putMetadata(bucket: string, key: string, metadata: unknown, md5?: string): Promise<void>;
  copyObject(
    srcBucket: string,
    srcKey: string,
    destBucket: string,
    destKey: string,
    metadata?: unknown,
  ): Promise<unknown>;
  initiateUpload(bucket: string, key: string, uploadId: string, metadata: unknown): Promise<void>;
  putPart(bucket: string, uploadId: string, partNumber: number, content: unknown): Promise<unknown>;
  putSubresource(bucket: string, key: string | undefined, resource: { type: string }): Promise<void>;
}

/** Folders owner-only (mkdir's mode is only applied to the folders it creates, so chmod the last one too). */
async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

/**
 * Creates the file owner-only before s3rver writes it: s3rver opens with the default 0666 (0644 under
 * the usual umask) and truncates an existing file without changing its mode. chmod covers a file of an
 * earlier release being overwritten.
 */
async function privateFile(file: string): Promise<void> {
  await (await open(file, 'a', 0o600)).close();
  await chmod(file, 0o600);
}

/**
 * s3rver's filesystem store with uploaded files 0600 in 0700 folders, whatever the umask: they hold
 * exam results and reports. The modes are set by this process, not through the umask, which is
 * process-wide (server/secrets-files.ts says why).
 */
export class PrivateFilesystemStore extends FilesystemStore {
  override async putBucket(bucket: string): Promise<unknown> {
    await privateDir(this.getBucketPath(bucket));
    return super.putBucket(bucket);
  }

  override async putObject(object: { bucket: string; key: string }): Promise<unknown> {
    await privateDir(path.dirname(this.getResourcePath(object.bucket, object.key, 'object')));
    return super.putObject(object);
  }

  override async putContent(objectPath: string, content: unknown): Promise<unknown> {
    await privateFile(objectPath);
    return super.putContent(objectPath, content);
  }

  override async putMetadata(bucket: string, key: string, metadata: unknown, md5?: string): Promise<void> {
    await privateFile(this.getResourcePath(bucket, key, 'metadata.json'));
    if (md5) await privateFile(this.getResourcePath(bucket, key, 'object.md5'));
    return super.putMetadata(bucket, key, metadata, md5);
  }

  override async copyObject(
    srcBucket: string,
    srcKey: string,
    destBucket: string,
    destKey: string,
    metadata?: unknown,
  ): Promise<unknown> {
    // copyFile keeps the source's mode (0600); the folder is the only new thing.
    await privateDir(path.dirname(this.getResourcePath(destBucket, destKey, 'object')));
    return super.copyObject(srcBucket, srcKey, destBucket, destKey, metadata);
  }

  override async initiateUpload(bucket: string, key: string, uploadId: string, metadata: unknown): Promise<void> {
    const uploadDir = path.join(this.getResourcePath(bucket, undefined, 'uploads'), uploadId);
    await privateDir(uploadDir);
    await Promise.all([privateFile(path.join(uploadDir, 'key')), privateFile(path.join(uploadDir, 'metadata'))]);
    return super.initiateUpload(bucket, key, uploadId, metadata);
  }

  override async putPart(bucket: string, uploadId: string, partNumber: number, content: unknown): Promise<unknown> {
    const partPath = path.join(this.getResourcePath(bucket, undefined, 'uploads'), uploadId, partNumber.toString());
    await privateDir(path.dirname(partPath));
    await privateFile(`${partPath}.md5`);
    return super.putPart(bucket, uploadId, partNumber, content);
  }

  override async putSubresource(bucket: string, key: string | undefined, resource: { type: string }): Promise<void> {
    await privateFile(this.getResourcePath(bucket, key, `${resource.type}.xml`));
    return super.putSubresource(bucket, key, resource);
  }
}
