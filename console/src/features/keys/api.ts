import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  issuedKey,
  keyListMeta,
  keyView,
  type IssueKeyInput,
  type KeyListQuery,
  type UpdateKeyInput,
} from '../../../../contracts/admin/keys.ts';
import { medicoOption, tenantView } from '../../../../contracts/admin/tenants.ts';
import { api, apiWithMeta, toQuery } from '../../lib/api.ts';

export type { IssuedKey as Credentials, KeyView as KeySummary } from '../../../../contracts/admin/keys.ts';
export type { MedicoOption } from '../../../../contracts/admin/tenants.ts';

export const useTenantOptions = () =>
  useQuery({ queryKey: ['tenants'], queryFn: () => api(z.array(tenantView), 'GET', '/tenants') });

/** One page of the clinic's keys matching `query`, and how many match in all (`meta.total`). */
export const useKeys = (slug: string | undefined, query: KeyListQuery = {}) =>
  useQuery({
    queryKey: ['keys', slug, query],
    queryFn: async () => {
      const { data, meta } = await apiWithMeta(
        z.array(keyView),
        'GET',
        `/tenants/${encodeURIComponent(slug!)}/keys${toQuery(query as Record<string, string | number | undefined>)}`,
      );
      return { keys: data, total: keyListMeta.parse(meta).total };
    },
    enabled: Boolean(slug),
    // While the next page or filter loads, the rows shown stay (no flash of an empty table); another clinic's never do.
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[1] === slug ? previous : undefined),
  });

export const useMedicos = (slug: string | undefined) =>
  useQuery({
    queryKey: ['medicos', slug],
    queryFn: () => api(z.array(medicoOption), 'GET', `/tenants/${encodeURIComponent(slug!)}/medicos`),
    enabled: Boolean(slug),
    staleTime: 60_000,
  });

function useKeyMutation<I, O>(fn: (input: I) => Promise<O>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['keys'] });
      void client.invalidateQueries({ queryKey: ['tenants'] });
    },
  });
}

export const useIssueKey = (slug: string) =>
  useKeyMutation((input: IssueKeyInput) => api(issuedKey, 'POST', `/tenants/${encodeURIComponent(slug)}/keys`, input));

export const useRotateKey = () => useKeyMutation((id: number) => api(issuedKey, 'POST', `/keys/${id}/rotate`));

export const useRevokeKey = () => useKeyMutation((id: number) => api(keyView, 'POST', `/keys/${id}/revoke`));

export const useUpdateKey = () =>
  useKeyMutation(({ id, ...input }: UpdateKeyInput & { id: number }) => api(keyView, 'PATCH', `/keys/${id}`, input));
