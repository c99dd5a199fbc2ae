import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signedRequestsOnly, UsedSignatures } from './signed-requests-only.ts';
import { PrivateFilesystemStore } from './private-store.ts';
import { ensurePrivateDir } from '../../server/secrets-files.ts';
import { drainable, type DrainResult } from '../../server/drain.ts';

const require = createRequire(import.meta.url);
// @20minutes/s3rver verifies SigV4 signatures, so presigned URLs are checked for real.
const S3rver = require('@20minutes/s3rver');
const { DUMMY_ACCOUNT } = require('@20minutes/s3rver/lib/models/account.js');

/** s3rver's built-in key pair; it stays valid only when it is the one configured. */
const S3RVER_DEFAULT_KEY = 'S3RVER';

export interface EmbeddedS3Options {
  directory: string;
  port: number;
  host?: string;
  accessKey: string;
  secretKey: string;
  buckets: string[];
  /** Clock of the single-use and not-yet-valid checks (tests). */
  now?: () => number;
}

export interface EmbeddedS3 {
  port: number;
  /** Stops accepting, lets the downloads under way finish until `deadline` (epoch ms), then cuts the rest (server/drain.ts). */
  drain(deadline: number): Promise<DrainResult>;
  close(): Promise<void>;
}

/**
 * The embedded S3 (default storage), locked down: only SigV4-signed requests (the services'
 * credentials, presigned URLs) get through, anything else is 403, and presigned GET URLs are
 * single-use (appliance/storage/signed-requests-only.ts).
 */
export async function startEmbeddedS3(options: EmbeddedS3Options): Promise<EmbeddedS3> {
  // Files 0600 in folders 0700 (private-store.ts), from the root folder down.
  ensurePrivateDir(options.directory);
  // s3rver's key registry is process-wide: set the configured pair (its secret too), drop the
  // well-known default unless it is the configured one.
  DUMMY_ACCOUNT.createKeyPair(options.accessKey, options.secretKey);
  if (options.accessKey !== S3RVER_DEFAULT_KEY) DUMMY_ACCOUNT.revokeAccessKey(S3RVER_DEFAULT_KEY);
  const server = new S3rver({
    address: options.host ?? '127.0.0.1',
    port: options.port,
    silent: true,
    directory: options.directory,
    // Path-style addressing only: the host of a presigned URL is the endpoint itself.
    vhostBuckets: false,
    configureBuckets: options.buckets.map((name) => ({ name })),
  });
  server.store = server.context.store = new PrivateFilesystemStore(options.directory);
  // s3rver lets unsigned requests through; the guard must run before all of its middleware
  // (Koa composes `middleware` when the server starts listening, in run()).
  server.middleware.unshift(signedRequestsOnly(new UsedSignatures(options.now), options.now));
  const address = (await server.run()) as AddressInfo;
  // Watched from before its first request (run() resolves before any connection is read).
  const { drain } = drainable(server.httpServer as Server);
  return {
    port: address.port,
    drain,
    // A drained server is already closed; draining first (at once) also ends the keep-alive connections close() would wait for.
    close: async () => {
      await drain(Date.now());
      // s3rver's close() also releases its logger; on a server the drain closed it only reports it was not running.
      await server.close().catch(() => undefined);
    },
  };
}
