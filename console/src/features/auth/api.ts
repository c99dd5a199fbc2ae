import { useEffect } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, onSessionLost, setCsrfToken } from '../../lib/api.ts';
import type { LoginInput } from '../../../../server/admin/schemas.ts';

export interface Session {
  operator: { id: number; username: string };
  csrf_token: string;
  expires_at: string;
}

const SESSION_KEY = ['session'] as const;

/** Drops every cached answer but the session's (whose observers must keep listening). */
const forgetData = (client: ReturnType<typeof useQueryClient>) =>
  client.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });

/** The current session, or null when the operator must sign in. */
export function useSession() {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: SESSION_KEY,
    queryFn: async (): Promise<Session | null> => {
      try {
        const session = await api<Session>('GET', '/auth/session');
        setCsrfToken(session.csrf_token);
        return session;
      } catch (error) {
        if (error instanceof ApiError && error.code === 'ADMIN_UNAUTHENTICATED') return null;
        throw error;
      }
    },
    staleTime: Infinity,
  });
  useEffect(
    () =>
      onSessionLost(() => {
        setCsrfToken(null);
        client.setQueryData(SESSION_KEY, null);
      }),
    [client],
  );
  return query;
}

export function useLogin() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: LoginInput) => api<Session>('POST', '/auth/login', input),
    onSuccess: (session) => {
      setCsrfToken(session.csrf_token);
      forgetData(client);
      client.setQueryData(SESSION_KEY, session);
    },
  });
}

export function useLogout() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api<{ logged_out: boolean }>('POST', '/auth/logout'),
    onSettled: () => {
      setCsrfToken(null);
      forgetData(client);
      client.setQueryData(SESSION_KEY, null);
    },
  });
}
