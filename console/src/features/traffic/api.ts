import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { alertsAnswer, statsAnswer, type StatsWindow } from '../../../../contracts/admin/stats.ts';
import { keyView } from '../../../../contracts/admin/keys.ts';
import { api, toQuery } from '../../lib/api.ts';

export type { AlertView, StatsAnswer, StatsWindow } from '../../../../contracts/admin/stats.ts';

export const useClinicKeys = (slug: string | undefined) =>
  useQuery({
    queryKey: ['keys', slug],
    queryFn: () => api(z.array(keyView), 'GET', `/tenants/${encodeURIComponent(slug!)}/keys`),
    enabled: Boolean(slug),
  });

/** The clinic's (or one key's) traffic over the window, refreshed every 30 s. */
export const useTrafficStats = (slug: string | undefined, window: StatsWindow, chaveId: string | undefined) =>
  useQuery({
    queryKey: ['stats', slug, window, chaveId],
    queryFn: () =>
      api(statsAnswer, 'GET', `/tenants/${encodeURIComponent(slug!)}/stats${toQuery({ window, chave_id: chaveId })}`),
    enabled: Boolean(slug),
    refetchInterval: 30_000,
  });

/** The alerts of every clinic (the banner polls every 30 s). */
export const useAlerts = () =>
  useQuery({ queryKey: ['alerts'], queryFn: () => api(alertsAnswer, 'GET', '/alerts'), refetchInterval: 30_000 });
