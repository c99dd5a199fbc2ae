export interface BackendS3Config {
  endPoint: string;
  port: number;
  useSSL: boolean;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region?: string;
}

export interface BackendConfig {
  dataDir: string;
  internalToken: string;
  /** Object storage for uploaded files; file-carrying routes answer 500 without it. */
  s3?: BackendS3Config;
  /** Clock override so tests can pin "today" (slots, defaults); real time otherwise. */
  now?: () => Date;
  logger?: boolean;
  /** Listen port for startBackendSim; 0 picks a free port. */
  port?: number;
}
