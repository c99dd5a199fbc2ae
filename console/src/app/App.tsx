import type { ReactNode } from 'react';
import { AuthGate } from '../features/auth/index.ts';
import { KeysPage } from '../features/keys/index.ts';
import { TenantsPage } from '../features/tenants/index.ts';
import { AuditDetailPage, AuditPage, JournalBanner } from '../features/audit/index.ts';
import { FaultsPage } from '../features/faults/index.ts';
import { StorageFaultsPage } from '../features/storage-faults/index.ts';
import { ClockBanner, ClockPage } from '../features/clock/index.ts';
import { ContractPage } from '../features/contract/index.ts';
import { TokensPage } from '../features/tokens/index.ts';
import { PlaygroundPage } from '../features/playground/index.ts';
import { IdempotencyPage } from '../features/idempotency/index.ts';
import { OperatorsPage } from '../features/operators/index.ts';
import { AlertsBanner, TrafficPage } from '../features/traffic/index.ts';
import type { Session } from '../features/auth/index.ts';
import { useLocation } from '../lib/router.ts';
import { Button, EmptyState } from '../lib/ui.tsx';

/** The menu, in its order, and the screen each entry opens. */
const SCREENS: Array<{ path: string; label: string; page: (session: Session) => ReactNode }> = [
  { path: '/keys', label: 'API keys', page: () => <KeysPage /> },
  { path: '/tenants', label: 'Clinics', page: () => <TenantsPage /> },
  { path: '/audit', label: 'Audit log', page: () => <AuditPage /> },
  { path: '/traffic', label: 'Traffic', page: () => <TrafficPage /> },
  { path: '/idempotency', label: 'Idempotency', page: () => <IdempotencyPage /> },
  { path: '/faults', label: 'Backend faults', page: () => <FaultsPage /> },
  { path: '/storage-faults', label: 'Storage faults', page: () => <StorageFaultsPage /> },
  { path: '/clock', label: 'Clock', page: () => <ClockPage /> },
  { path: '/contract', label: 'Contract', page: () => <ContractPage /> },
  { path: '/tokens', label: 'Operator tokens', page: () => <TokensPage /> },
  { path: '/playground', label: 'Signing playground', page: () => <PlaygroundPage /> },
  { path: '/operators', label: 'Operators', page: (session) => <OperatorsPage me={session.operator} /> },
];

function Page({ path, session }: { path: string; session: Session }) {
  const detail = /^\/audit\/(\d+)$/.exec(path);
  if (detail) return <AuditDetailPage id={Number(detail[1])} />;
  const screen = SCREENS.find((s) => s.path === path);
  if (screen) return screen.page(session);
  return <EmptyState title="Page not found">Pick a section in the menu.</EmptyState>;
}

export function App() {
  const { path } = useLocation();
  return (
    <AuthGate>
      {(session, logout) => (
        <div className="shell">
          <nav className="sidebar" aria-label="Main">
            <div className="brand">
              <div className="brand-mark">CE</div>
              <div>
                <div className="brand-name">Exams Gateway</div>
                <div className="brand-sub">Operator console</div>
              </div>
            </div>
            {SCREENS.map((item) => (
              <a
                key={item.path}
                className="nav-link"
                href={`#${item.path}`}
                aria-current={path === item.path || path.startsWith(`${item.path}/`) ? 'page' : undefined}
              >
                {item.label}
              </a>
            ))}
            <div className="sidebar-footer">
              <div>
                Signed in as <strong style={{ color: '#fff' }}>{session.operator.username}</strong>
                {session.operator.role === 'viewer' && <div data-testid="read-only-role">Viewer · read-only</div>}
              </div>
              <Button className="btn-sm" onClick={logout}>
                Sign out
              </Button>
            </div>
          </nav>
          <main className="main">
            <JournalBanner />
            <AlertsBanner />
            <ClockBanner />
            <Page path={path} session={session} />
          </main>
        </div>
      )}
    </AuthGate>
  );
}
