import { useEffect, useSyncExternalStore } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, onSessionLost, setCsrfToken } from '../../lib/api.ts';
import { setConsoleRole } from '../../lib/role.ts';
import { loggedOut, sessionView, type LoginInput, type SessionView } from '../../../../contracts/admin/auth.ts';

export type Session = SessionView;

const SESSION_KEY = ['session'] as const;

/*
 * Why the login page is showing. `sessionStorage` (this tab only) remembers that the tab had a session and
 * which page it was on, so an expiry noticed on a reload is told apart from a first visit or a sign-out.
 */
const HAD_SESSION = 'ce.console.had-session';
const RETURN_TO = 'ce.console.return-to';

export type LoginReason = 'expired' | null;
let reason: LoginReason = null;
const reasonListeners = new Set<() => void>();
const setReason = (next: LoginReason) => {
  reason = next;
  for (const listener of reasonListeners) listener();
};

/** 'expired' when the operator lands on the login because the session ended under them. */
export function useLoginReason(): LoginReason {
  return useSyncExternalStore(
    (listener) => {
      reasonListeners.add(listener);
      return () => reasonListeners.delete(listener);
    },
    () => reason,
  );
}

function sessionEnded(): void {
  setConsoleRole(null);
  if (sessionStorage.getItem(HAD_SESSION)) {
    sessionStorage.setItem(RETURN_TO, window.location.hash || '#/keys');
    setReason('expired');
  }
  sessionStorage.removeItem(HAD_SESSION);
}

function sessionStarted(): void {
  sessionStorage.setItem(HAD_SESSION, '1');
  setReason(null);
}

/** Back to the page the operator was on when the session expired (the hash usually still says so). */
function returnToSavedPage(): void {
  const target = sessionStorage.getItem(RETURN_TO);
  sessionStorage.removeItem(RETURN_TO);
  if (target && target !== window.location.hash) window.location.hash = target;
}

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
        const session = await api(sessionView, 'GET', '/auth/session');
        setCsrfToken(session.csrf_token);
        setConsoleRole(session.operator.role);
        sessionStarted();
        return session;
      } catch (error) {
        if (error instanceof ApiError && error.code === 'ADMIN_UNAUTHENTICATED') {
          sessionEnded();
          return null;
        }
        throw error;
      }
    },
    staleTime: Infinity,
  });
  useEffect(
    () =>
      onSessionLost(() => {
        if (!client.getQueryData(SESSION_KEY)) return;
        sessionEnded();
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
    mutationFn: (input: LoginInput) => api(sessionView, 'POST', '/auth/login', input),
    onSuccess: (session) => {
      setCsrfToken(session.csrf_token);
      setConsoleRole(session.operator.role);
      forgetData(client);
      sessionStarted();
      returnToSavedPage();
      client.setQueryData(SESSION_KEY, session);
    },
  });
}

export function useLogout() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api(loggedOut, 'POST', '/auth/logout'),
    onSettled: () => {
      // A sign-out on purpose: no "expired" notice, no page to return to.
      sessionStorage.removeItem(HAD_SESSION);
      sessionStorage.removeItem(RETURN_TO);
      setReason(null);
      setCsrfToken(null);
      setConsoleRole(null);
      forgetData(client);
      client.setQueryData(SESSION_KEY, null);
    },
  });
}
