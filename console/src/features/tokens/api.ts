import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  issuedOperatorToken,
  operatorTokenRemoved,
  operatorTokenView,
  type IssueOperatorTokenInput,
  type IssuedOperatorToken,
  type OperatorTokenView,
} from '../../../../contracts/admin/operator-tokens.ts';
import { tenantView } from '../../../../contracts/admin/tenants.ts';
import { api } from '../../lib/api.ts';

/** What the console lists: never the token, never its hash. */
export type OperatorToken = OperatorTokenView;
/** The token is shown once, right after issue. */
export type { IssuedOperatorToken };

/** The clinics a token can be bound to (`GET /tenants`; features do not import each other). */
export interface ClinicOption {
  slug: string;
  nome: string;
}

export const useClinicOptions = () =>
  useQuery({
    queryKey: ['tenants'],
    queryFn: () => api(z.array(tenantView), 'GET', '/tenants'),
    select: (rows): ClinicOption[] => rows.map(({ slug, nome }) => ({ slug, nome })),
  });

export const useOperatorTokens = () =>
  useQuery({
    queryKey: ['operator-tokens'],
    queryFn: () => api(z.array(operatorTokenView), 'GET', '/operator-tokens'),
  });

export function useIssueOperatorToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: IssueOperatorTokenInput) => api(issuedOperatorToken, 'POST', '/operator-tokens', input),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['operator-tokens'] }),
  });
}

export function useRevokeOperatorToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api(operatorTokenView, 'POST', `/operator-tokens/${id}/revoke`),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['operator-tokens'] }),
  });
}

/** A revoked or expired token off the list (the journal keeps what it did). */
export function useRemoveOperatorToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api(operatorTokenRemoved, 'DELETE', `/operator-tokens/${id}`),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['operator-tokens'] }),
  });
}
