import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { removedAll, removedById } from '../../../../contracts/admin/common.ts';
import { faultView, type FaultInput, type FaultView } from '../../../../contracts/admin/faults.ts';
import { api } from '../../lib/api.ts';

export type Fault = FaultView;

export const useFaults = () => useQuery({ queryKey: ['faults'], queryFn: () => api(z.array(faultView), 'GET', '/faults'), refetchInterval: 5000 });

function useFaultMutation<I, O>(fn: (input: I) => Promise<O>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => void client.invalidateQueries({ queryKey: ['faults'] }) });
}

export const useAddFault = () => useFaultMutation((input: FaultInput) => api(faultView, 'POST', '/faults', input));
export const useRemoveFault = () => useFaultMutation((id: number) => api(removedById, 'DELETE', `/faults/${id}`));
export const useClearFaults = () => useFaultMutation(() => api(removedAll, 'DELETE', '/faults'));
