import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import type { IssueOperatorTokenInput, OperatorTokenView } from '../../../../server/admin/reset-schemas.ts';

/** What the console lists: never the token, never its hash. */
export type OperatorToken = OperatorTokenView;

export interface IssuedOperatorToken extends OperatorToken {
  /** Shown once, right after issue. */
  token: string;
}

/** The clinics a token can be bound to (`GET /tenants`; features do not import each other). */
export interface ClinicOption {
  slug: string;
  nome: string;
}

export const useClinicOptions = () =>
  useQuery({ queryKey: ['tenants'], queryFn: () => api<ClinicOption[]>('GET', '/tenants'), select: (rows) => rows.map(({ slug, nome }) => ({ slug, nome })) });

export const useOperatorTokens = () =>
  useQuery({ queryKey: ['operator-tokens'], queryFn: () => api<OperatorToken[]>('GET', '/operator-tokens') });

export function useIssueOperatorToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: IssueOperatorTokenInput) => api<IssuedOperatorToken>('POST', '/operator-tokens', input),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['operator-tokens'] }),
  });
}

export function useRevokeOperatorToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api<OperatorToken>('POST', `/operator-tokens/${id}/revoke`),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['operator-tokens'] }),
  });
}

/** A revoked or expired token off the list (the journal keeps what it did). */
export function useRemoveOperatorToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api<{ id: number; removido: true }>('DELETE', `/operator-tokens/${id}`),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['operator-tokens'] }),
  });
}
