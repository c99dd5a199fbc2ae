import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

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

export interface IdempotencyList {
  key: { id: number; api_key_masked: string; label: string; status: string; tenant_slug: string | null };
  items: IdempotencyEntry[];
  truncated: boolean;
}

export interface KeyOption {
  id: number;
  label: string;
  api_key_masked: string;
  status: string;
}

export const useTenants = () =>
  useQuery({ queryKey: ['tenants'], queryFn: () => api<Array<{ id: number; slug: string; nome: string }>>('GET', '/tenants') });

export const useTenantKeys = (slug: string | undefined) =>
  useQuery({
    queryKey: ['idempotency-key-options', slug],
    staleTime: 0,
    queryFn: () => api<KeyOption[]>('GET', `/tenants/${encodeURIComponent(slug!)}/keys`),
    enabled: Boolean(slug),
  });

export const useIdempotencyEntries = (keyId: number | null) =>
  useQuery({
    queryKey: ['idempotency', keyId],
    queryFn: () => api<IdempotencyList>('GET', `/keys/${keyId}/idempotency`),
    enabled: keyId !== null,
    staleTime: 0,
  });

export const usePurgeEntry = (keyId: number | null) => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (entry: string) => api<{ purged: true }>('DELETE', `/keys/${keyId}/idempotency/${entry}`),
    onSettled: () => client.invalidateQueries({ queryKey: ['idempotency', keyId] }),
  });
};
