// shared-node/ holds the Node code both services use (the gateway and backend-sim import it; it imports packages and
// contracts/ only). The S3 client: both talk to the same storage with the same settings shape.
import * as Minio from 'minio';

export interface S3Settings {
  endPoint: string;
  port: number;
  useSSL: boolean;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
}

export function createS3Client(settings: S3Settings): Minio.Client {
  return new Minio.Client({
    endPoint: settings.endPoint,
    port: settings.port,
    useSSL: settings.useSSL,
    accessKey: settings.accessKey,
    secretKey: settings.secretKey,
    region: settings.region,
    pathStyle: true,
  });
}

export async function ensureBucket(client: Minio.Client, bucket: string, region: string): Promise<void> {
  if (!(await client.bucketExists(bucket))) await client.makeBucket(bucket, region);
}
