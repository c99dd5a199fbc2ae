import type { ReactNode } from 'react';
import { ErrorBanner, Loading } from '../../lib/ui.tsx';
import { useLogout, useSession, type Session } from './api.ts';
import { LoginPage } from './LoginPage.tsx';

/** Renders the login page until there is a session, then the app with the operator and a logout action. */
export function AuthGate({ children }: { children: (session: Session, logout: () => void) => ReactNode }) {
  const session = useSession();
  const logout = useLogout();
  if (session.isPending) return <Loading label="Checking session…" />;
  if (session.isError)
    return (
      <main className="main">
        <ErrorBanner error={session.error} title="The console API is not reachable" />
      </main>
    );
  if (!session.data) return <LoginPage />;
  return <>{children(session.data, () => logout.mutate())}</>;
}
