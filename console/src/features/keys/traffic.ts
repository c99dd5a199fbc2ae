import { useQuery } from '@tanstack/react-query';
import { keyStatsAnswer } from '../../../../contracts/admin/stats.ts';
import { api } from '../../lib/api.ts';

/** Each key's calls per minute over the last hour (the list's sparklines), by key id; refreshed every minute. */
export function useKeySparklines(slug: string | undefined) {
  const query = useQuery({
    queryKey: ['stats-keys', slug],
    queryFn: () => api(keyStatsAnswer, 'GET', `/tenants/${encodeURIComponent(slug!)}/stats/keys?window=1h`),
    enabled: Boolean(slug),
    refetchInterval: 60_000,
  });
  const byKey = new Map((query.data ?? []).map((k) => [k.chave_id, k]));
  return (chaveId: number) => byKey.get(chaveId);
}
