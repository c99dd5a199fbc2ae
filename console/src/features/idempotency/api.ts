import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, toQuery } from '../../lib/api.ts';

/** `stored_503`: a lost backend's 503, replayed for 24 h as the spec requires; `abandoned`: left in flight by a crash, its lease over. */
export type EntryState = 'in_flight' | 'abandoned' | 'completed' | 'stored_503';

export interface IdempotencyEntry {
  entry: string;
  idem_key: string;
  method: string;
  path: string;
  state: EntryState;
  status: number | null;
  fingerprint: string;
  created_at: string;
  expires_at: string;
  lease_until: string | null;
  request_id: string | null;
  audit_id: number | null;
}

export interface KeyRef {
  id: number;
  label: string;
  api_key_masked: string;
  status: string;
}

export interface IdempotencyList {
  key: KeyRef & { tenant_slug: string | null };
  items: IdempotencyEntry[];
  truncated: boolean;
}

/** One side of a 422 conflict (server/admin/routes/idempotency.ts). */
export interface ConflictSide {
  method: string;
  path: string;
  fingerprint: string | null;
  request_id: string | null;
  audit_id: number | null;
}

export interface IdempotencyConflict {
  audit_id: number;
  request_id: string;
  ts: string;
  idem_key: string | null;
  reason: 'body' | 'operation' | null;
  key: KeyRef | null;
  first: ConflictSide | null;
  sent: ConflictSide;
}

export interface ClinicIdempotency {
  tenant: { slug: string; nome: string };
  idem_key: string | null;
  entries: Array<IdempotencyEntry & { key: KeyRef }>;
  conflicts: IdempotencyConflict[];
  conflicts_truncated: boolean;
}

export const useTenantKeys = (slug: string | undefined) =>
  useQuery({
    queryKey: ['idempotency-key-options', slug],
    staleTime: 0,
    queryFn: () => api<KeyRef[]>('GET', `/tenants/${encodeURIComponent(slug!)}/keys`),
    enabled: Boolean(slug),
  });

export const useIdempotencyEntries = (keyId: number | null) =>
  useQuery({
    queryKey: ['idempotency', 'key', keyId],
    queryFn: () => api<IdempotencyList>('GET', `/keys/${keyId}/idempotency`),
    enabled: keyId !== null,
    staleTime: 0,
  });

/** A clinic's entries of one Idempotency-Key value (when given) and its 422 conflicts. */
export const useClinicIdempotency = (slug: string | undefined, idemKey: string | undefined) =>
  useQuery({
    queryKey: ['idempotency', 'clinic', slug, idemKey ?? null],
    queryFn: () => api<ClinicIdempotency>('GET', `/tenants/${encodeURIComponent(slug!)}/idempotency${toQuery({ idem_key: idemKey })}`),
    enabled: Boolean(slug),
    staleTime: 0,
  });

export const usePurgeEntry = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ keyId, entry }: { keyId: number; entry: string }) => api<{ purged: true }>('DELETE', `/keys/${keyId}/idempotency/${entry}`),
    onSettled: () => client.invalidateQueries({ queryKey: ['idempotency'] }),
  });
};
