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
  /** 1: the request proved it holds the key (verified signature, session, token); 0: it only named the key. */
  verified: number;
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

type ClassTotals = { rows: number; bytes: number };

/** The journal's budget and state (server/audit/journal-budget.ts). */
export interface JournalStatus {
  state: 'ok' | 'warning' | 'full' | 'failing';
  reasons: Array<'write_failed' | 'verified_full' | 'verified_near_full' | 'low_space' | 'near_low_space' | 'noise_shed'>;
  accepting: boolean;
  max_bytes: number;
  max_rows: number;
  min_free_bytes: number;
  noise_cap_bytes: number;
  totals: { verified: ClassTotals; unverified: ClassTotals; unattributed: ClassTotals };
  free_bytes: number | null;
  last_shed_at: string | null;
  shed_rows_total: number;
  last_write_error: string | null;
}

/** The audit log against its budget (AUDIT_MAX_BYTES, AUDIT_MAX_ROWS) and retention. */
export interface AuditStorage {
  rows: number;
  max_rows: number;
  retention_days: number;
  oldest_ts: string | null;
  newest_ts: string | null;
  database_bytes: number;
  free_bytes: number;
  journal: JournalStatus;
}

export const useAuditStorage = (refetchInterval?: number) =>
  useQuery({ queryKey: ['audit-storage'], queryFn: () => api<AuditStorage>('GET', '/audit/storage'), staleTime: 0, refetchInterval });

/** A group of requests that named no existing key: one per minute, client address, status and code. */
export interface UnattributedGroup {
  id: number;
  minute: string;
  client_ip: string;
  status: number;
  error_code: string | null;
  count: number;
  first_ts: string;
  last_ts: string;
  sample: { request_id?: string; method?: string; path?: string; error_message?: string | null } | string;
}

export const useUnattributed = () =>
  useInfiniteQuery({
    queryKey: ['audit-unattributed'],
    queryFn: ({ pageParam }) =>
      api<{ items: UnattributedGroup[]; next_before_id: number | null }>('GET', `/audit/unattributed${toQuery({ before_id: pageParam, limit: 20 })}`),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => last.next_before_id ?? undefined,
    staleTime: 0,
  });
