import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, toQuery } from '../../lib/api.ts';

export interface AuditItem {
  id: number;
  request_id: string;
  ts: string;
  source: 'api' | 'console';
  tenant_id: number | null;
  tenant_slug: string | null;
  chave_id: number | null;
  operator_id: number | null;
  method: string;
  path: string;
  status: number;
  error_code: string | null;
  duracao_ms: number;
  client_ip: string;
  action: string | null;
}

export interface AuditDetail extends Omit<AuditItem, 'action'> {
  body: unknown;
  detail: unknown;
  /** `error.message` of the answer (Portuguese, as the integrator received it). */
  error_message: string | null;
  /** The answer, redacted like request bodies; null for successful reads and redirects. */
  response_body: unknown;
  /** Request headers without signing material (X-Signature, Authorization and Cookie are never recorded). */
  request_headers: Record<string, string> | null;
  operator_username: string | null;
}

export type AuditFilters = Record<string, string>;

export const FILTER_NAMES = ['tenant', 'chave_id', 'method', 'path', 'status', 'error_code', 'request_id', 'source', 'from', 'to'] as const;

export const useAuditTenants = () =>
  useQuery({ queryKey: ['tenants'], queryFn: () => api<Array<{ slug: string; nome: string }>>('GET', '/tenants') });

export const useAuditPages = (filters: AuditFilters) =>
  useInfiniteQuery({
    queryKey: ['audit', filters],
    queryFn: ({ pageParam }) =>
      api<{ items: AuditItem[]; next_cursor: string | null }>('GET', `/audit${toQuery({ ...filters, cursor: pageParam, limit: 50 })}`),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    staleTime: 0,
  });

export const useAuditEntry = (id: number) => useQuery({ queryKey: ['audit-entry', id], queryFn: () => api<AuditDetail>('GET', `/audit/${id}`) });

/** The audit log against its size bound (AUDIT_MAX_ROWS) and retention. */
export interface AuditStorage {
  rows: number;
  max_rows: number;
  retention_days: number;
  oldest_ts: string | null;
  newest_ts: string | null;
  database_bytes: number;
  free_bytes: number;
}

export const useAuditStorage = () =>
  useQuery({ queryKey: ['audit-storage'], queryFn: () => api<AuditStorage>('GET', '/audit/storage'), staleTime: 0 });
