import { createHash } from 'node:crypto';
import type { OperationKey } from './idempotency.store.ts';

/**
 * Names one backend write of one entry: (API key id, Idempotency-Key, the operation the key is bound to)
 * plus the write's position in the handler (today every write operation makes exactly one), so a retry
 * reaches the same token whatever spelling of the path it comes by. backend-sim commits it with the write
 * and its answer, and answers a repeat from that record (docs/architecture.md § Exactly once across
 * crashes). An entry of an earlier release (no operation) keeps the token it was executed with: (API key
 * id, method, raw path, key). An identifier, not a secret.
 */
export function backendWriteToken(entry: OperationKey, write: number): string {
  const named =
    entry.operation === null
      ? ['clinic-gateway/backend-write/v1', entry.chaveId, entry.method, entry.path, entry.idemKey, write]
      : ['clinic-gateway/backend-write/v2', entry.chaveId, entry.idemKey, entry.operation, write];
  return createHash('sha256').update(JSON.stringify(named)).digest('hex');
}
