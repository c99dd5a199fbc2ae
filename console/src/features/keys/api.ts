import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { issuedKey, keyView, type IssueKeyInput, type UpdateKeyInput } from '../../../../contracts/admin/keys.ts';
import { medicoOption, tenantView } from '../../../../contracts/admin/tenants.ts';
import { api } from '../../lib/api.ts';

export type { IssuedKey as Credentials, KeyView as KeySummary } from '../../../../contracts/admin/keys.ts';
export type { MedicoOption } from '../../../../contracts/admin/tenants.ts';

export const useTenantOptions = () =>
  useQuery({ queryKey: ['tenants'], queryFn: () => api(z.array(tenantView), 'GET', '/tenants') });

export const useKeys = (slug: string | undefined) =>
  useQuery({
    queryKey: ['keys', slug],
    queryFn: () => api(z.array(keyView), 'GET', `/tenants/${encodeURIComponent(slug!)}/keys`),
    enabled: Boolean(slug),
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
