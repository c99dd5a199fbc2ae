import { useMutation, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { clockState } from '../../../../contracts/admin/clock.ts';
import { keyView } from '../../../../contracts/admin/keys.ts';
import {
  fullApiKey,
  playgroundAnswer,
  type PlaygroundAnswer,
  type PlaygroundRequest,
} from '../../../../contracts/admin/playground.ts';
import { tenantView } from '../../../../contracts/admin/tenants.ts';
import { api } from '../../lib/api.ts';

export const useTenants = () =>
  useQuery({ queryKey: ['tenants'], queryFn: () => api(z.array(tenantView), 'GET', '/tenants') });

/** The console API's key view: the key is masked, the secret is never there. */
export const useTenantKeys = (slug: string) =>
  useQuery({
    queryKey: ['playground-keys', slug],
    queryFn: () => api(z.array(keyView), 'GET', `/tenants/${encodeURIComponent(slug)}/keys`),
    enabled: Boolean(slug),
    // Its own cache entry, always fresh: a key issued a moment ago on the keys page must be in the list.
    staleTime: 0,
  });

/** The gateway checks X-Timestamp against the appliance clock, which an operator may have moved ahead. */
export const useClockOffset = () =>
  useQuery({
    queryKey: ['clock'],
    queryFn: () => api(clockState, 'GET', '/clock'),
    select: (c) => c.offset_seconds ?? 0,
  });

/** The chosen key's full API key (the public half; the console lists keys masked). */
export const useFullApiKey = (keyId: string) =>
  useQuery({
    queryKey: ['playground-api-key', keyId],
    queryFn: () => api(fullApiKey, 'GET', `/keys/${encodeURIComponent(keyId)}/api-key`),
    enabled: Boolean(keyId),
    staleTime: Infinity,
  });

/** A request signed in the page, as the gateway is to receive it: the secret is not in it (the gateway checks the method). */
export type SignedRequest = Omit<PlaygroundRequest, 'method'> & { method: string };
export type RelayedAnswer = PlaygroundAnswer;

/** Send through the gateway (server/admin/routes/playground.ts says why not straight from the page). */
export const useSendSigned = () =>
  useMutation({ mutationFn: (request: SignedRequest) => api(playgroundAnswer, 'POST', '/playground/send', request) });
