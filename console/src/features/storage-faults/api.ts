import { storageFaultView, type StorageFaultInput } from '../../../../contracts/admin/storage-faults.ts';
import { useFaultSwitches } from '../../lib/fault-switchboard.tsx';

/** The storage faults switched on (`/storage-faults`): list, add, remove one, remove all. */
export const useStorageFaults = () =>
  useFaultSwitches<typeof storageFaultView, StorageFaultInput>('/storage-faults', storageFaultView);
