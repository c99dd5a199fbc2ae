import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import type { ClockState } from '../../../../server/clock.ts';
import type { ClockChange } from '../../../../server/admin/routes/clock.ts';

export type { ClockState };

/** Refreshed every 5 s: the CLI moves the same clock. */
export const useClock = () => useQuery({ queryKey: ['clock'], queryFn: () => api<ClockState>('GET', '/clock'), refetchInterval: 5000 });

function useClockMutation<I>(fn: (input: I) => Promise<ClockState>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: (state) => client.setQueryData(['clock'], state) });
}

export const useChangeClock = () => useClockMutation((change: ClockChange) => api<ClockState>('PUT', '/clock', change));
export const useResetClock = () => useClockMutation(() => api<ClockState>('DELETE', '/clock'));
