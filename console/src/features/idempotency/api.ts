import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { clinicIdempotency, idempotencyPurged, keyIdempotency } from '../../../../contracts/admin/idempotency.ts';
import { keyView } from '../../../../contracts/admin/keys.ts';
import { api, toQuery } from '../../lib/api.ts';

export type {
  ClinicIdempotency,
  ConflictSide,
  IdempotencyConflictView as IdempotencyConflict,
  IdempotencyEntryState as EntryState,
  IdempotencyEntryView as IdempotencyEntry,
  KeyIdempotency as IdempotencyList,
  KeyRef,
} from '../../../../contracts/admin/idempotency.ts';

export const useTenantKeys = (slug: string | undefined) =>
  useQuery({
    queryKey: ['idempotency-key-options', slug],
    staleTime: 0,
    queryFn: () => api(z.array(keyView), 'GET', `/tenants/${encodeURIComponent(slug!)}/keys`),
    enabled: Boolean(slug),
  });

export const useIdempotencyEntries = (keyId: number | null) =>
  useQuery({
    queryKey: ['idempotency', 'key', keyId],
    queryFn: () => api(keyIdempotency, 'GET', `/keys/${keyId}/idempotency`),
    enabled: keyId !== null,
    staleTime: 0,
  });

/** A clinic's entries of one Idempotency-Key value (when given) and its 422 conflicts. */
export const useClinicIdempotency = (slug: string | undefined, idemKey: string | undefined) =>
  useQuery({
    queryKey: ['idempotency', 'clinic', slug, idemKey ?? null],
    queryFn: () =>
      api(
        clinicIdempotency,
        'GET',
        `/tenants/${encodeURIComponent(slug!)}/idempotency${toQuery({ idem_key: idemKey })}`,
      ),
    enabled: Boolean(slug),
    staleTime: 0,
  });

export const usePurgeEntry = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ keyId, entry }: { keyId: number; entry: string }) =>
      api(idempotencyPurged, 'DELETE', `/keys/${keyId}/idempotency/${entry}`),
    onSettled: () => client.invalidateQueries({ queryKey: ['idempotency'] }),
  });
};
