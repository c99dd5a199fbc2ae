import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { ALL_SCOPES, KEY_EXPIRING_SOON_DAYS, type KeyListQuery } from '../../../../contracts/admin/keys.ts';
import { navigate, useLocation } from '../../lib/router.ts';
import { useCanWrite } from '../../lib/role.ts';
import { ConfirmDialog } from '../../lib/dialogs.tsx';
import { ClinicSelectField, SelectField, valueOptions } from '../../lib/forms.tsx';
import { ListTable } from '../../lib/table.tsx';
import {
  Badge,
  Button,
  DatedLine,
  EmptyState,
  ErrorBanner,
  Field,
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

/**
 * At most this many chips in a row, else the first and "+N": the cell stays one line high and narrow enough for
 * the table to fit at 1024×768 (issue 31 § 3).
 */
const CHIPS_SHOWN = 2;

/**
 * A preset by name ("All scopes", "Read-only"); otherwise one chip per resource with the actions' initials
 * (`exames rd`), the first CHIPS_SHOWN and a "+N" chip, every scope in the tooltip and for screen readers.
 */
function ScopesCell({ scopes }: { scopes: string[] }) {
  const preset = presetOf(scopes);
  if (preset) return <Badge tone="info">{presetLabel(preset)}</Badge>;
  const chips = compactScopes(scopes);
  const shown = chips.length > CHIPS_SHOWN ? chips.slice(0, 1) : chips;
  const hidden = chips.slice(shown.length);
  return (
    <div className="chips chips-line" data-testid="scopes" title={scopes.join(', ')}>
      <span className="sr-only">Scopes: {scopes.join(', ')}</span>
      {shown.map((c) => (
        <span key={c.resource} className="chip" title={c.title} aria-hidden="true">
          {c.resource} <strong>{c.letters}</strong>
        </span>
      ))}
      {hidden.length > 0 && (
        <span className="chip chip-more" title={hidden.map((c) => c.title).join('\n')} aria-hidden="true">
          +{hidden.length}
        </span>
      )}
    </div>
  );
}

/** A key's expiry under its status: "Expires 9 Dec", "Expired 2 Dec" (red), nothing when it never expires. */
export function ExpiryLine({ k }: { k: Pick<KeySummary, 'expires_at' | 'expired' | 'status'> }) {
  if (!k.expires_at) return null;
  const soon = !k.expired && Date.parse(k.expires_at) - Date.now() < KEY_EXPIRING_SOON_DAYS * 86_400_000;
  return (
    <div
      className={`key-meta nowrap ${k.expired ? 'key-expired' : soon ? 'key-expiring' : ''}`}
      title={formatDateFull(k.expires_at)}
      data-testid="expires-at"
    >
      {k.expired ? 'Expired' : 'Expires'} {formatDay(k.expires_at)}
    </div>
  );
}

/** `9 Dec` (this year) or `20 Jun 2027`: the day only, the time is in the title. */
function formatDay(iso: string): string {
  const d = new Date(iso);
  const sameYear = d.getFullYear() === new Date().getFullYear();
  return d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: sameYear ? undefined : 'numeric' });
}

/** Rows per page of the keys list. */
export const KEYS_PAGE_SIZE = 20;

const STATUS_OPTIONS = [
  { value: 'active', label: 'Active' },
  { value: 'expired', label: 'Expired' },
  { value: 'inactive', label: 'Inactive' },
  { value: 'revoked', label: 'Revoked' },
];

/** The search box's text, sent once typing pauses. */
function useSettled(value: string, ms = 250): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export function KeysPage() {
  const { params } = useLocation();
  const tenants = useTenantOptions();
  const tenant = params.get('tenant') ?? tenants.data?.[0]?.slug;
  const [search, setSearch] = useState('');
  const q = useSettled(search.trim());
  const [scope, setScope] = useState('');
  const [status, setStatus] = useState('');
  const [expiring, setExpiring] = useState(false);
  const [showRevoked, setShowRevoked] = useState(false);
  const [offset, setOffset] = useState(0);
  // Another clinic or another filter starts again from the first page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the dependencies are what resets the page
  useEffect(() => setOffset(0), [tenant, q, scope, status, expiring, showRevoked]);
  const query: KeyListQuery = {
    q: q || undefined,
    scope: (scope || undefined) as KeyListQuery['scope'],
    // "Any status" hides revoked keys unless asked ("Show revoked"), as the list always has.
    status: (status || (showRevoked ? undefined : 'current')) as KeyListQuery['status'],
    expiring: expiring ? KEY_EXPIRING_SOON_DAYS : undefined,
    limit: KEYS_PAGE_SIZE,
    offset,
  };
  const keys = useKeys(tenant, query);
  const revoked = useKeys(tenant, { status: 'revoked', limit: 1 });
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
  /** The key issued last: highlighted until the operator leaves the page. */
  const [highlight, setHighlight] = useState<number | null>(null);

  const sparklineOf = useKeySparklines(tenant);
  const medicoName = useMemo(() => new Map(medicos.data?.map((m) => [m.id, m.nome])), [medicos.data]);
  const visible = keys.data?.keys ?? [];
  const total = keys.data?.total ?? 0;
  const revokedCount = revoked.data?.total ?? 0;
  const filtered = Boolean(q || scope || status || expiring);

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
        <Field id="keys-search" label="Search">
          <input
            id="keys-search"
            type="search"
            value={search}
            maxLength={100}
            placeholder="Label, key prefix, #id or doctor"
            onChange={(e) => setSearch(e.target.value)}
          />
        </Field>
        <SelectField
          id="keys-scope"
          label="Scope"
          value={scope}
          onChange={setScope}
          blank="Any scope"
          options={valueOptions(ALL_SCOPES)}
        />
        <SelectField
          id="keys-status"
          label="Status"
          value={status}
          onChange={setStatus}
          blank="Any status"
          options={STATUS_OPTIONS}
        />
        <label className="checkbox" style={{ marginBottom: 8 }}>
          <input type="checkbox" checked={expiring} onChange={(e) => setExpiring(e.target.checked)} />
          Expiring within {KEY_EXPIRING_SOON_DAYS} days
        </label>
        {revokedCount > 0 && !status && (
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
            ) : filtered ? (
              <EmptyState title="No key matches">Change the search or the filters.</EmptyState>
            ) : (
              <EmptyState title="No keys for this clinic">Issue a key to let an integrator call the API.</EmptyState>
            )
          }
          className="keys-table"
          columns={[
            { label: 'Key', className: 'col-key' },
            { label: 'Access', className: 'col-access' },
            { label: 'Status', className: 'col-status' },
            { label: 'Activity', className: 'col-activity' },
          ]}
          rowKey={(k) => k.id}
          row={(k) => ({
            className: `${k.status === 'revoked' ? 'row-revoked' : ''} ${k.id === highlight ? 'row-new' : ''}`,
            'data-key-id': k.id,
            'data-new': k.id === highlight ? 'true' : undefined,
          })}
          footer={<KeysPager offset={offset} shown={visible.length} total={total} onOffset={setOffset} />}
          cells={(k) => (
            <>
              <td className="col-key">
                <div className="key-label" title={k.label || undefined}>
                  {k.label || <span className="muted">No label</span>}
                </div>
                <div className="key-meta">
                  <span className="mono nowrap">#{k.id}</span> · <span className="mono nowrap">{k.api_key_masked}</span>
                </div>
                {/* The key's views on a line of their own, so the row stays three lines high at 1024×768. */}
                <div className="key-meta key-links nowrap">
                  <a href={`#/audit?chave_id=${k.id}`}>Calls</a> ·{' '}
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
                {/* An active key past its expiry is refused (AUTH_KEY_REVOKED): it shows as expired. */}
                <StatusBadge status={k.expired && k.status === 'active' ? 'expired' : k.status} />
                {k.format === 'legacy' && <StatusBadge status="legacy" />}
                {k.status === 'revoked' && k.revoked_at && (
                  <div className="key-meta nowrap" title={formatDateFull(k.revoked_at)} data-testid="revoked-at">
                    {formatDate(k.revoked_at)}
                  </div>
                )}
                {k.status !== 'revoked' && <ExpiryLine k={k} />}
              </td>
              <td className="key-activity">
                {/* The day only (the time is in the title): the table fits at 1024×768. */}
                <DatedLine
                  label={k.rotated_at ? 'Rotated' : 'Created'}
                  iso={k.rotated_at ?? k.created_at}
                  text={formatDay(k.rotated_at ?? k.created_at)}
                />
                <DatedLine label="Used" iso={k.last_used_at} text={relativeTime(k.last_used_at)} />
                <Sparkline
                  height={14}
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

/** "21–40 of 44" with Previous and Next: the server pages the list (`limit`, `offset`, `meta.total`). */
function KeysPager({
  offset,
  shown,
  total,
  onOffset,
}: {
  offset: number;
  shown: number;
  total: number;
  onOffset: (offset: number) => void;
}) {
  if (total <= KEYS_PAGE_SIZE && offset === 0) return null;
  return (
    <nav className="pager keys-pager" aria-label="Pages of keys">
      <span className="muted" data-testid="keys-range">
        {shown === 0 ? 0 : offset + 1}–{offset + shown} of {total}
      </span>
      <Button className="btn-sm" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - KEYS_PAGE_SIZE))}>
        Previous
      </Button>
      <Button
        className="btn-sm"
        disabled={offset + KEYS_PAGE_SIZE >= total}
        onClick={() => onOffset(offset + KEYS_PAGE_SIZE)}
      >
        Next
      </Button>
    </nav>
  );
}
