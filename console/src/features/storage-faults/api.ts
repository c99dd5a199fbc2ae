import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import type { StorageFaultInput, StorageFaultView } from '../../../../server/admin/storage-fault-schemas.ts';

export type StorageFault = StorageFaultView;

export const useStorageFaults = () =>
  useQuery({ queryKey: ['storage-faults'], queryFn: () => api<StorageFault[]>('GET', '/storage-faults'), refetchInterval: 5000 });

function useStorageFaultMutation<I, O>(fn: (input: I) => Promise<O>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => void client.invalidateQueries({ queryKey: ['storage-faults'] }) });
}

export const useAddStorageFault = () => useStorageFaultMutation((input: StorageFaultInput) => api<StorageFault>('POST', '/storage-faults', input));
export const useRemoveStorageFault = () => useStorageFaultMutation((id: number) => api<unknown>('DELETE', `/storage-faults/${id}`));
export const useClearStorageFaults = () => useStorageFaultMutation(() => api<unknown>('DELETE', '/storage-faults'));
