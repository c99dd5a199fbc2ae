import { faultView, type FaultInput } from '../../../../contracts/admin/faults.ts';
import { useFaultSwitches } from '../../lib/fault-switchboard.tsx';

/** The backend faults switched on (`/faults`): list, add, remove one, remove all. */
export const useBackendFaults = () => useFaultSwitches<typeof faultView, FaultInput>('/faults', faultView);
