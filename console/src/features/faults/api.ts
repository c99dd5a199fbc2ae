import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import type { FaultInput } from '../../../../server/admin/schemas.ts';

export interface Fault {
  id: number;
  /** A slug, or `*` / null for every clinic. */
  tenant: string | null;
  method: string;
  path: string;
  route: string;
  kind: string;
  latency_ms: number;
  failure_rate: number;
  criado_em: string;
  hits: number;
}

export const useFaults = () => useQuery({ queryKey: ['faults'], queryFn: () => api<Fault[]>('GET', '/faults'), refetchInterval: 5000 });

function useFaultMutation<I, O>(fn: (input: I) => Promise<O>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => void client.invalidateQueries({ queryKey: ['faults'] }) });
}

export const useAddFault = () => useFaultMutation((input: FaultInput) => api<Fault>('POST', '/faults', input));
export const useRemoveFault = () => useFaultMutation((id: number) => api<unknown>('DELETE', `/faults/${id}`));
export const useClearFaults = () => useFaultMutation(() => api<unknown>('DELETE', '/faults'));
