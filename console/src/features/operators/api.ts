import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../../lib/api.ts';
import { z } from 'zod';
import { passwordChanged, type ChangePasswordInput } from '../../../../contracts/admin/auth.ts';
import {
  operatorView,
  operatorWithPassword,
  type CreateOperatorInput,
  type OperatorRefusal,
  type OperatorRole,
  type OperatorView,
  type OperatorWithPassword,
  type UpdateOperatorInput,
} from '../../../../contracts/admin/operators.ts';

export type Operator = OperatorView;
export type { OperatorRole };

/** The signed-in operator, handed down by the app shell (features do not import each other). */
export interface Me {
  id: number;
  username: string;
  role: OperatorRole;
}

/** An account with its password, in the answer of create and reset only. */
export type { OperatorWithPassword };

const KEY = ['operators'] as const;

/** Admins only: the API refuses the list to a viewer, so a viewer's page does not ask. */
export const useOperators = (enabled: boolean) =>
  useQuery({ queryKey: KEY, queryFn: () => api(z.array(operatorView), 'GET', '/operators'), enabled });

export function useCreateOperator() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateOperatorInput) => api(operatorWithPassword, 'POST', '/operators', input),
    onSuccess: () => void client.invalidateQueries({ queryKey: KEY }),
  });
}

export function useUpdateOperator() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, change }: { id: number; change: UpdateOperatorInput }) =>
      api(operatorView, 'PATCH', `/operators/${id}`, change),
    onSuccess: () => void client.invalidateQueries({ queryKey: KEY }),
  });
}

export function useResetOperatorPassword() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api(operatorWithPassword, 'POST', `/operators/${id}/reset-password`),
    onSuccess: () => void client.invalidateQueries({ queryKey: KEY }),
  });
}

/** Your own password: the current one is required; your other sessions end, this one stays. */
export const useChangePassword = () =>
  useMutation({ mutationFn: (input: ChangePasswordInput) => api(passwordChanged, 'POST', '/auth/password', input) });

/**
 * The refusals that carry `details.motivo`, in the operator's words (the API answers in Portuguese; the
 * shared banner shows an English message as it is).
 */
export function explained(error: unknown, username?: string): unknown {
  if (!(error instanceof ApiError)) return error;
  const who = username ? `“${username}”` : 'This operator';
  const sentence: Record<OperatorRefusal, string> = {
    self: 'This is your own account: another admin has to change it.',
    last_admin: `${who} is the last active admin: make another operator admin first.`,
    username_taken: `An operator with that username already exists.`,
    unknown_operator: 'That operator does not exist any more — refresh the page.',
  };
  const text = sentence[String(error.details?.motivo ?? '') as OperatorRefusal];
  return text ? new ApiError(error.code, error.status, text, error.details, error.requestId) : error;
}
