import { useMutation, useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

export interface TenantOption {
  slug: string;
  nome: string;
}

/** The console API's key view: the key is masked, the secret is never there. */
export interface KeyOption {
  id: number;
  api_key_masked: string;
  label: string;
  escopos: string[];
  medico_id: number;
  status: string;
}

export interface ClockState {
  offset_seconds: number;
}

export const useTenants = () => useQuery({ queryKey: ['tenants'], queryFn: () => api<TenantOption[]>('GET', '/tenants') });

export const useTenantKeys = (slug: string) =>
  useQuery({
    queryKey: ['playground-keys', slug],
    queryFn: () => api<KeyOption[]>('GET', `/tenants/${encodeURIComponent(slug)}/keys`),
    enabled: Boolean(slug),
    // Its own cache entry, always fresh: a key issued a moment ago on the keys page must be in the list.
    staleTime: 0,
  });

/** The gateway checks X-Timestamp against the appliance clock, which an operator may have moved ahead. */
export const useClockOffset = () =>
  useQuery({ queryKey: ['clock'], queryFn: () => api<ClockState>('GET', '/clock'), select: (c) => c.offset_seconds ?? 0 });

/** The chosen key's full API key (the public half; the console lists keys masked). */
export const useFullApiKey = (keyId: string) =>
  useQuery({
    queryKey: ['playground-api-key', keyId],
    queryFn: () => api<{ id: number; api_key: string; status: string }>('GET', `/keys/${encodeURIComponent(keyId)}/api-key`),
    enabled: Boolean(keyId),
    staleTime: Infinity,
  });

/** A request signed in the page, as the gateway is to receive it: the secret is not in it. */
export interface SignedRequest {
  method: string;
  path: string;
  headers: { 'x-api-key': string; 'x-timestamp': string; 'x-signature': string; 'idempotency-key'?: string; 'content-type'?: string };
  body?: string;
}

export interface RelayedAnswer {
  status: number;
  headers: Array<[string, string]>;
  body: string;
  duration_ms: number;
}

/** Send through the gateway (server/admin/routes/playground.ts says why not straight from the page). */
export const useSendSigned = () => useMutation({ mutationFn: (request: SignedRequest) => api<RelayedAnswer>('POST', '/playground/send', request) });
