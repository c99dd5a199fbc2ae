import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { auditDetail, auditPage, auditStorage, unattributedPage } from '../../../../contracts/admin/audit.ts';
import { api, toQuery } from '../../lib/api.ts';

export type {
  AuditDetail,
  AuditItem,
  AuditStorage,
  JournalStatus,
  UnattributedGroup,
} from '../../../../contracts/admin/audit.ts';

export type AuditFilters = Record<string, string>;

export const FILTER_NAMES = [
  'tenant',
  'chave_id',
  'method',
  'path',
  'status',
  'error_code',
  'request_id',
  'source',
  'from',
  'to',
] as const;

export const useAuditPages = (filters: AuditFilters) =>
  useInfiniteQuery({
    queryKey: ['audit', filters],
    queryFn: ({ pageParam }) => api(auditPage, 'GET', `/audit${toQuery({ ...filters, cursor: pageParam, limit: 50 })}`),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    staleTime: 0,
  });

export const useAuditEntry = (id: number) =>
  useQuery({ queryKey: ['audit-entry', id], queryFn: () => api(auditDetail, 'GET', `/audit/${id}`) });

/** The audit log against its budget (AUDIT_MAX_BYTES, AUDIT_MAX_ROWS) and retention. */
export const useAuditStorage = (refetchInterval?: number) =>
  useQuery({
    queryKey: ['audit-storage'],
    queryFn: () => api(auditStorage, 'GET', '/audit/storage'),
    staleTime: 0,
    refetchInterval,
  });

/** Groups of requests that named no existing key: one per minute, client address, status and code. */
export const useUnattributed = () =>
  useInfiniteQuery({
    queryKey: ['audit-unattributed'],
    queryFn: ({ pageParam }) =>
      api(unattributedPage, 'GET', `/audit/unattributed${toQuery({ before_id: pageParam, limit: 20 })}`),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => last.next_before_id ?? undefined,
    staleTime: 0,
  });
