import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

const require = createRequire(import.meta.url);
// @20minutes/s3rver verifies SigV4 signatures, so presigned URLs are checked for real.
const S3rver = require('@20minutes/s3rver');
const { DUMMY_ACCOUNT } = require('@20minutes/s3rver/lib/models/account.js');

export interface EmbeddedS3Options {
  directory: string;
  port: number;
  host?: string;
  accessKey: string;
  secretKey: string;
  buckets: string[];
}

export interface EmbeddedS3 {
  port: number;
  close(): Promise<void>;
}

export async function startEmbeddedS3(options: EmbeddedS3Options): Promise<EmbeddedS3> {
  mkdirSync(options.directory, { recursive: true });
  if (options.accessKey !== 'S3RVER') DUMMY_ACCOUNT.createKeyPair(options.accessKey, options.secretKey);
  const server = new S3rver({
    address: options.host ?? '127.0.0.1',
    port: options.port,
    silent: true,
    directory: options.directory,
    // Path-style addressing only: the host of a presigned URL is the endpoint itself.
    vhostBuckets: false,
    configureBuckets: options.buckets.map((name) => ({ name })),
  });
  const address = (await server.run()) as AddressInfo;
  return {
    port: address.port,
    close: () => server.close(),
  };
}
