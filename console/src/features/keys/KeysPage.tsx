import { useMemo, useState, type ReactNode } from 'react';
import { navigate, useLocation } from '../../lib/router.ts';
import { useCanWrite } from '../../lib/role.ts';
import { ConfirmDialog } from '../../lib/dialogs.tsx';
import { ClinicSelectField } from '../../lib/forms.tsx';
import { ListTable } from '../../lib/table.tsx';
import {
  Badge,
  Button,
  DatedLine,
  EmptyState,
  ErrorBanner,
  NewButton,
  PageHeader,
  formatDate,
  formatDateFull,
  relativeTime,
} from '../../lib/ui.tsx';
import { StatusBadge } from '../../lib/vocabulary.tsx';
import {
  useKeys,
  useMedicos,
  useRevokeKey,
  useRotateKey,
  useTenantOptions,
  type Credentials,
  type KeySummary,
} from './api.ts';
import { EditKeyDialog, IssueKeyDialog, SecretDialog } from './dialogs.tsx';
import { compactScopes, presetLabel, presetOf } from './ScopePicker.tsx';
import { useKeySparklines } from './traffic.ts';
import { Sparkline } from '../../lib/sparkline.tsx';

type Modal =
  | { kind: 'issue' }
  | { kind: 'edit'; key: KeySummary }
  | { kind: 'confirm'; action: KeyAction; key: KeySummary }
  | { kind: 'secret'; credentials: Credentials; rotated: boolean }
  | null;

type KeyAction = 'rotate' | 'revoke';

/** What rotating or revoking a key asks before it acts, in its action's words; `masked` names the key. */
const KEY_ACTIONS: Record<
  KeyAction,
  {
    title: (id: number) => string;
    label: string;
    variant: 'primary' | 'danger';
    body: (masked: ReactNode) => ReactNode;
  }
> = {
  rotate: {
    title: (id) => `Rotate the secret of key #${id}?`,
    label: 'Rotate secret',
    variant: 'primary',
    body: (masked) => (
      <>
        A new secret is generated for {masked}. The API key stays the same;{' '}
        <strong>the current secret stops working immediately</strong>, so the integrator must switch at once.
      </>
    ),
  },
  revoke: {
    title: (id) => `Revoke key #${id}?`,
    label: 'Revoke key',
    variant: 'danger',
    body: (masked) => (
      <>
        Every request signed with {masked} will be refused with <code>AUTH_KEY_REVOKED</code>. This cannot be undone.
      </>
    ),
  },
};

/** A preset by name; otherwise one chip per resource with the actions' initials (`exames rd`). */
function ScopesCell({ scopes }: { scopes: string[] }) {
  const preset = presetOf(scopes);
  if (preset) return <Badge tone="info">{presetLabel(preset)}</Badge>;
  return (
    <div className="chips" data-testid="scopes">
      <span className="sr-only">Scopes: {scopes.join(', ')}</span>
      {compactScopes(scopes).map((c) => (
        <span key={c.resource} className="chip" title={c.title} aria-hidden="true">
          {c.resource} <strong>{c.letters}</strong>
        </span>
      ))}
    </div>
  );
}

export function KeysPage() {
  const { params } = useLocation();
  const tenants = useTenantOptions();
  const tenant = params.get('tenant') ?? tenants.data?.[0]?.slug;
  const keys = useKeys(tenant);
  const medicos = useMedicos(tenant);
  const rotate = useRotateKey();
  const revoke = useRevokeKey();
  const mutations = { rotate, revoke };
  const [modal, setModal] = useState<Modal>(null);
  /** Asks before rotating or revoking `key`, without the error of the last try. */
  const confirm = (action: KeyAction, key: KeySummary) => {
    mutations[action].reset();
    setModal({ kind: 'confirm', action, key });
  };
  // A viewer is not offered what the API would refuse it (403 ADMIN_FORBIDDEN).
  const canWrite = useCanWrite();
  const [showRevoked, setShowRevoked] = useState(false);
  /** The key issued last: highlighted until the operator leaves the page. */
  const [highlight, setHighlight] = useState<number | null>(null);

  const sparklineOf = useKeySparklines(tenant);
  const medicoName = useMemo(() => new Map(medicos.data?.map((m) => [m.id, m.nome])), [medicos.data]);
  const visible = keys.data?.filter((k) => showRevoked || k.status !== 'revoked') ?? [];
  const revokedCount = keys.data?.filter((k) => k.status === 'revoked').length ?? 0;

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys sign integrators' requests. Secrets are shown once, at issue and at rotation."
        actions={canWrite && <NewButton noun="key" onClick={() => setModal({ kind: 'issue' })} disabled={!tenant} />}
      />
      <div className="toolbar">
        <ClinicSelectField
          id="keys-tenant"
          value={tenant ?? ''}
          onChange={(slug) => navigate('/keys', { tenant: slug })}
          clinics={tenants.data}
          disabled={!tenants.data}
        />
        {revokedCount > 0 && (
          <label className="checkbox" style={{ marginBottom: 8 }}>
            <input type="checkbox" checked={showRevoked} onChange={(e) => setShowRevoked(e.target.checked)} />
            Show revoked ({revokedCount})
          </label>
        )}
      </div>
      <ErrorBanner error={tenants.error ?? keys.error} title="Keys could not be loaded" />
      <section className="card" aria-label="API keys">
        <ListTable
          pending={tenants.isPending || Boolean(tenant && keys.isPending)}
          rows={tenant ? visible : undefined}
          empty={
            !tenant ? (
              <EmptyState title="No clinics yet">Create a clinic on the Clinics page first.</EmptyState>
            ) : (
              <EmptyState title="No keys for this clinic">Issue a key to let an integrator call the API.</EmptyState>
            )
          }
          className="keys-table"
          columns={[{ label: 'Key', className: 'col-key' }, 'Access', 'Status', 'Activity']}
          rowKey={(k) => k.id}
          row={(k) => ({
            className: `${k.status === 'revoked' ? 'row-revoked' : ''} ${k.id === highlight ? 'row-new' : ''}`,
            'data-key-id': k.id,
            'data-new': k.id === highlight ? 'true' : undefined,
          })}
          cells={(k) => (
            <>
              <td className="col-key">
                <div className="key-label">{k.label || <span className="muted">No label</span>}</div>
                <div className="key-meta">
                  <span className="mono nowrap">#{k.id}</span> · <span className="mono nowrap">{k.api_key_masked}</span>{' '}
                  · <a href={`#/audit?chave_id=${k.id}`}>Calls</a> ·{' '}
                  <a href={`#/idempotency?chave_id=${k.id}`}>Idempotency</a>
                  {' · '}
                  <a href={`#/traffic?tenant=${encodeURIComponent(tenant ?? '')}&chave_id=${k.id}`}>Traffic</a>
                </div>
              </td>
              <td>
                <ScopesCell scopes={k.escopos} />
                <div className="key-meta">
                  {k.medico_id === 0 ? (
                    <span>Whole clinic</span>
                  ) : (
                    <span data-testid="bound-doctor">
                      Only {medicoName.get(k.medico_id) ?? 'doctor'} <span className="mono nowrap">#{k.medico_id}</span>
                    </span>
                  )}
                </div>
              </td>
              <td>
                <StatusBadge status={k.status} />
                {k.format === 'legacy' && <StatusBadge status="legacy" />}
                {k.status === 'revoked' && k.revoked_at && (
                  <div className="key-meta nowrap" title={formatDateFull(k.revoked_at)} data-testid="revoked-at">
                    {formatDate(k.revoked_at)}
                  </div>
                )}
              </td>
              <td className="key-activity">
                <DatedLine label="Created" iso={k.created_at} />
                {k.rotated_at && <DatedLine label="Rotated" iso={k.rotated_at} />}
                <DatedLine label="Used" iso={k.last_used_at} text={relativeTime(k.last_used_at)} />
                <Sparkline
                  points={sparklineOf(k.id)?.points}
                  label={`Calls per minute, last hour: ${sparklineOf(k.id)?.calls ?? 0}`}
                />
              </td>
            </>
          )}
          actions={(k) =>
            k.status !== 'revoked' &&
            canWrite && (
              <div className="row-actions">
                <Button
                  className="btn-sm"
                  onClick={() => setModal({ kind: 'edit', key: k })}
                  aria-label={`Edit key ${k.id}`}
                >
                  Edit
                </Button>
                <Button className="btn-sm" onClick={() => confirm('rotate', k)} aria-label={`Rotate key ${k.id}`}>
                  Rotate
                </Button>
                <Button
                  className="btn-sm"
                  variant="danger"
                  onClick={() => confirm('revoke', k)}
                  aria-label={`Revoke key ${k.id}`}
                >
                  Revoke
                </Button>
              </div>
            )
          }
        />
      </section>

      {modal?.kind === 'issue' && tenant && (
        <IssueKeyDialog
          tenant={tenant}
          tenantName={tenants.data?.find((t) => t.slug === tenant)?.nome}
          onClose={() => setModal(null)}
          onIssued={(credentials) => {
            setHighlight(credentials.chave_id);
            setModal({ kind: 'secret', credentials, rotated: false });
          }}
        />
      )}
      {modal?.kind === 'edit' && tenant && (
        <EditKeyDialog tenant={tenant} apiKey={modal.key} onClose={() => setModal(null)} />
      )}
      {modal?.kind === 'confirm' && (
        <ConfirmDialog
          title={KEY_ACTIONS[modal.action].title(modal.key.id)}
          label={KEY_ACTIONS[modal.action].label}
          variant={KEY_ACTIONS[modal.action].variant}
          pendingLabel="Working…"
          autoFocus
          pending={mutations[modal.action].isPending}
          error={mutations[modal.action].error}
          onClose={() => setModal(null)}
          onConfirm={() =>
            modal.action === 'rotate'
              ? rotate.mutate(modal.key.id, {
                  onSuccess: (credentials) => setModal({ kind: 'secret', credentials, rotated: true }),
                })
              : revoke.mutate(modal.key.id, { onSuccess: () => setModal(null) })
          }
        >
          <p>{KEY_ACTIONS[modal.action].body(<code>{modal.key.api_key_masked}</code>)}</p>
        </ConfirmDialog>
      )}
      {modal?.kind === 'secret' && (
        <SecretDialog credentials={modal.credentials} rotated={modal.rotated} onClose={() => setModal(null)} />
      )}
    </>
  );
}
