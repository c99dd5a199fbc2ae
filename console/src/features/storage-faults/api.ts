import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { removedAll, removedById } from '../../../../contracts/admin/common.ts';
import { storageFaultView, type StorageFaultInput, type StorageFaultView } from '../../../../contracts/admin/storage-faults.ts';
import { api } from '../../lib/api.ts';

export type StorageFault = StorageFaultView;

export const useStorageFaults = () =>
  useQuery({ queryKey: ['storage-faults'], queryFn: () => api(z.array(storageFaultView), 'GET', '/storage-faults'), refetchInterval: 5000 });

function useStorageFaultMutation<I, O>(fn: (input: I) => Promise<O>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => void client.invalidateQueries({ queryKey: ['storage-faults'] }) });
}

export const useAddStorageFault = () => useStorageFaultMutation((input: StorageFaultInput) => api(storageFaultView, 'POST', '/storage-faults', input));
export const useRemoveStorageFault = () => useStorageFaultMutation((id: number) => api(removedById, 'DELETE', `/storage-faults/${id}`));
export const useClearStorageFaults = () => useStorageFaultMutation(() => api(removedAll, 'DELETE', '/storage-faults'));
