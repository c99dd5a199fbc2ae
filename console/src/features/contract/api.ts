import { useQuery } from '@tanstack/react-query';
import { contractReport, type ContractReport } from '../../../../contracts/admin/contract.ts';
import { api } from '../../lib/api.ts';

export type { ContractReport };

/** Refreshed every 5 s: the guard counts as the integrator's calls go through it. */
export const useContractReport = () =>
  useQuery({
    queryKey: ['contract'],
    queryFn: () => api(contractReport, 'GET', '/contract'),
    refetchInterval: 5000,
  });
