import type * as Minio from 'minio';
import { ApiError } from '../errors.ts';
import { createS3Client, type S3Settings } from './client.ts';

/** Spec § File redirects: presigned URLs are valid 300 seconds. */
export const PRESIGNED_URL_SECONDS = 300;

/** Where backend-sim says a file lives. Never shown to a client or written to the audit log. */
export interface StoredObject {
  bucket: string;
  object_key: string;
}

/**
 * Presigns GET URLs for the endpoint clients reach (S3_PUBLIC_ENDPOINT): SigV4 signs the Host
 * header, so the URL must be presigned for the host the client will use. The expiry is always
 * explicit (the minio client's default is 7 days). A failure is the spec's 500 RES_ARQUIVO_S3_FALHA.
 */
export class Presigner {
  private readonly client: Minio.Client;

  constructor(publicEndpoint: S3Settings) {
    this.client = createS3Client(publicEndpoint);
  }

  async presignGet(object: StoredObject): Promise<string> {
    try {
      return await this.client.presignedGetObject(object.bucket, object.object_key, PRESIGNED_URL_SECONDS);
    } catch {
      throw new ApiError('RES_ARQUIVO_S3_FALHA', 'Falha transitoria ao gerar a URL do arquivo. Tente novamente com backoff exponencial.');
    }
  }
}
