import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import type { IssueKeyInput, UpdateKeyInput } from '../../../../server/admin/schemas.ts';

export interface TenantOption {
  id: number;
  slug: string;
  nome: string;
  sandbox: boolean;
}

export interface KeySummary {
  id: number;
  tenant_id: number;
  api_key_masked: string;
  label: string;
  escopos: string[];
  medico_id: number;
  status: string;
  format: string;
  created_at: string;
  rotated_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface Credentials {
  chave_id: number;
  api_key: string;
  api_secret: string;
  key: KeySummary;
}

export interface MedicoOption {
  id: number;
  nome: string;
  especialidade: string;
  conselho: string;
}

export const useTenantOptions = () =>
  useQuery({ queryKey: ['tenants'], queryFn: () => api<TenantOption[]>('GET', '/tenants') });

export const useKeys = (slug: string | undefined) =>
  useQuery({
    queryKey: ['keys', slug],
    queryFn: () => api<KeySummary[]>('GET', `/tenants/${encodeURIComponent(slug!)}/keys`),
    enabled: Boolean(slug),
  });

export const useMedicos = (slug: string | undefined) =>
  useQuery({
    queryKey: ['medicos', slug],
    queryFn: () => api<MedicoOption[]>('GET', `/tenants/${encodeURIComponent(slug!)}/medicos`),
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
  useKeyMutation((input: IssueKeyInput) => api<Credentials>('POST', `/tenants/${encodeURIComponent(slug)}/keys`, input));

export const useRotateKey = () => useKeyMutation((id: number) => api<Credentials>('POST', `/keys/${id}/rotate`));

export const useRevokeKey = () => useKeyMutation((id: number) => api<KeySummary>('POST', `/keys/${id}/revoke`));

export const useUpdateKey = () =>
  useKeyMutation(({ id, ...input }: UpdateKeyInput & { id: number }) => api<KeySummary>('PATCH', `/keys/${id}`, input));
