import type { S3Settings } from '../shared-node/s3-client.ts';
import type { TracingSettings } from '../shared-node/otel.ts';

/** The storage settings both services share; the region may be left out (storage.ts then uses us-east-1). */
export type BackendS3Config = Omit<S3Settings, 'region'> & { region?: string };

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
  /** OpenTelemetry traces over OTLP/HTTP (backend-sim/tracing.ts); absent or null: off, nothing of the SDK loaded. */
  tracing?: TracingSettings | null;
}
