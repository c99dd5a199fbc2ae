import { randomBytes } from 'node:crypto';
import type * as Minio from 'minio';
import { ApiError } from '../errors.ts';
import { createS3Client, type S3Settings } from '../../shared-node/s3-client.ts';
import type { PresignFaults } from './storage-faults.ts';

/** Spec § File redirects: presigned URLs are valid 300 seconds. */
export const PRESIGNED_URL_SECONDS = 300;

/** Where backend-sim says a file lives. Never shown to a client or written to the audit log. */
export interface StoredObject {
  bucket: string;
  object_key: string;
}

export interface PresignerOptions {
  /** Injected presign failures (console API `/admin/api/storage-faults`). */
  faults?: PresignFaults;
  /** Where the real cause of a failure goes (the client only sees RES_ARQUIVO_S3_FALHA). */
  onError?: (error: unknown) => void;
  /** The URL's signing date (X-Amz-Date): the appliance clock with the embedded storage; real time when omitted. */
  now?: () => Date;
}

export interface PresignScope {
  /** Tenant slug of the caller, matched against tenant-scoped storage faults. */
  tenant?: string;
}

class InjectedStorageFault extends Error {
  constructor() {
    super('injected storage fault (console: storage faults)');
  }
}

/** backend-sim's object keys are `<tenant>/<area>/<uuid>.<ext>` (docs/backend-sim.md § Files). */
const tenantOfKey = (objectKey: string): string | null => {
  const slash = objectKey.indexOf('/');
  return slash > 0 ? objectKey.slice(0, slash) : null;
};

/**
 * Presigns GET URLs for the endpoint clients reach (S3_PUBLIC_ENDPOINT): SigV4 signs the Host
 * header, so the URL must be presigned for the host the client will use. The client is built with
 * its region, so presigning never calls the storage. The expiry is always explicit (the minio
 * client's default is 7 days). Each URL carries a random signed `nonce`: X-Amz-Date has one-second
 * granularity, so two redirects of the same object within a second would otherwise get the very same
 * URL, and the embedded storage's single-use rule would refuse the second one (S3 and MinIO ignore
 * unknown query parameters). A failure, real or injected, is the spec's 500 RES_ARQUIVO_S3_FALHA
 * with a fixed message: no bucket, key or storage error reaches the client.
 */
export class Presigner {
  private readonly client: Minio.Client;

  constructor(
    publicEndpoint: S3Settings,
    private readonly options: PresignerOptions = {},
  ) {
    this.client = createS3Client(publicEndpoint);
  }

  /**
   * `scope.tenant` selects tenant-scoped faults; without it the tenant is read from the object
   * key's first segment (shared seed samples then only match faults for every clinic).
   */
  async presignGet(object: StoredObject, scope: PresignScope = {}): Promise<string> {
    try {
      if (this.options.faults?.shouldFail(scope.tenant ?? tenantOfKey(object.object_key)))
        throw new InjectedStorageFault();
      return await this.client.presignedGetObject(
        object.bucket,
        object.object_key,
        PRESIGNED_URL_SECONDS,
        { nonce: randomBytes(12).toString('hex') },
        this.options.now?.(),
      );
    } catch (error) {
      this.options.onError?.(error);
      throw new ApiError(
        'RES_ARQUIVO_S3_FALHA',
        'Falha transitoria ao gerar a URL do arquivo. Tente novamente com backoff exponencial.',
      );
    }
  }
}
