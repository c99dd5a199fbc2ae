import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { clockState, type ClockChange, type ClockState } from '../../../../contracts/admin/clock.ts';
import { api } from '../../lib/api.ts';

export type { ClockState };

/** Refreshed every 5 s: the CLI moves the same clock. */
export const useClock = () =>
  useQuery({ queryKey: ['clock'], queryFn: () => api(clockState, 'GET', '/clock'), refetchInterval: 5000 });

function useClockMutation<I>(fn: (input: I) => Promise<ClockState>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: (state) => client.setQueryData(['clock'], state) });
}

export const useChangeClock = () => useClockMutation((change: ClockChange) => api(clockState, 'PUT', '/clock', change));
export const useResetClock = () => useClockMutation(() => api(clockState, 'DELETE', '/clock'));
