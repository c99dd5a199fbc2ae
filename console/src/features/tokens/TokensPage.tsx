import { useState, type FormEvent } from 'react';
import {
  ALL_TENANTS,
  OPERATOR_TOKEN_DEFAULT_DAYS,
  OPERATOR_TOKEN_MAX_DAYS,
  issueOperatorTokenSchema,
} from '../../../../contracts/admin/operator-tokens.ts';
import { CopyableValue } from '../../lib/copy.tsx';
import { ConfirmDialog, FormDialog, ShownOnceDialog } from '../../lib/dialogs.tsx';
import { useFieldErrors } from '../../lib/forms.tsx';
import { englishMessage } from '../../lib/messages.ts';
import { ListTable } from '../../lib/table.tsx';
import {
  Badge,
  Button,
  EmptyState,
  ErrorBanner,
  Field,
  Loading,
  PageHeader,
  breakable,
  formatDate,
} from '../../lib/ui.tsx';
import { ClinicName, StatusBadge, useClinicDirectory } from '../../lib/vocabulary.tsx';
import {
  useClinicOptions,
  useIssueOperatorToken,
  useOperatorTokens,
  useRemoveOperatorToken,
  useRevokeOperatorToken,
  type IssuedOperatorToken,
  type OperatorToken,
} from './api.ts';
import { useCanWrite } from '../../lib/role.ts';

const resetSnippet = (token: string, slug: string) =>
  `curl -fsS -X POST ${window.location.origin}/admin/api/automation/tenants/${slug}/reset \\\n  -H "Authorization: Bearer ${token}" -H "Content-Type: application/json" -d '{}'`;

/** Each clinic by name with its slug (what a script puts in the reset URL), or "All clinics". */
function Clinics({ tenants }: { tenants: OperatorToken['tenants'] }) {
  const clinics = useClinicDirectory();
  if (tenants === ALL_TENANTS) return <Badge tone="warn">All clinics</Badge>;
  return (
    <span className="clinic-list">
      {tenants.map((slug) => (
        <ClinicName key={slug} slug={slug} nome={clinics.nameOf(slug)} />
      ))}
    </span>
  );
}

const DAYS_MESSAGE = `Use a whole number of days from 1 to ${OPERATOR_TOKEN_MAX_DAYS}.`;

function IssueDialog({ onClose, onIssued }: { onClose: () => void; onIssued: (t: IssuedOperatorToken) => void }) {
  const issue = useIssueOperatorToken();
  const clinics = useClinicOptions();
  const [label, setLabel] = useState('');
  const [allClinics, setAllClinics] = useState(false);
  const [chosen, setChosen] = useState<string[]>([]);
  const [days, setDays] = useState(String(OPERATOR_TOKEN_DEFAULT_DAYS));
  const [clone, setClone] = useState(false);
  const { errors, setErrors, fromServer } = useFieldErrors();
  const toggle = (slug: string) =>
    setChosen((list) => (list.includes(slug) ? list.filter((s) => s !== slug) : [...list, slug]));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!allClinics && chosen.length === 0) found.tenants = 'Choose at least one clinic, or “All clinics”.';
    const expires = /^\d+$/.test(days.trim()) ? Number(days.trim()) : NaN;
    if (!(expires >= 1 && expires <= OPERATOR_TOKEN_MAX_DAYS)) found.expires_in_days = DAYS_MESSAGE;
    const parsed = issueOperatorTokenSchema.safeParse({
      label,
      tenants: allClinics ? ALL_TENANTS : chosen,
      expires_in_days: expires,
      clone,
    });
    if (!parsed.success) for (const i of parsed.error.issues) found[String(i.path[0])] ??= i.message;
    setErrors(found);
    if (Object.keys(found).length > 0 || !parsed.success) return;
    issue.mutate(parsed.data, { onSuccess: onIssued, onError: fromServer });
  };
  return (
    <FormDialog
      title="New operator token"
      label="Issue token"
      pendingLabel="Issuing…"
      pending={issue.isPending}
      onSubmit={submit}
      error={issue.error}
      errorTitle="The token was not issued"
      onClose={onClose}
    >
      <Field id="token-label" label="Label" error={errors.label} hint="Who uses it, e.g. “Playwright suite – CI”.">
        {/* biome-ignore lint/a11y/noAutofocus: a dialog opens on its first field */}
        <input id="token-label" value={label} maxLength={100} onChange={(e) => setLabel(e.target.value)} autoFocus />
      </Field>
      <fieldset
        className={`field ${errors.tenants ? 'field-error' : ''}`}
        aria-label="Clinics"
        style={{ border: 0, padding: 0, margin: '0 0 12px' }}
      >
        <legend style={{ fontWeight: 600, marginBottom: 6 }}>Clinics it may reset</legend>
        {clinics.isPending ? (
          <Loading label="Loading clinics…" />
        ) : (
          // biome-ignore lint/a11y/useSemanticElements: a group inside the fieldset above, without a second fieldset's box
          <div role="group" aria-label="Clinic list">
            {clinics.data?.map((c) => (
              <label key={c.slug} className="checkbox" style={{ marginBottom: 6, opacity: allClinics ? 0.5 : 1 }}>
                <input
                  type="checkbox"
                  checked={!allClinics && chosen.includes(c.slug)}
                  disabled={allClinics}
                  onChange={() => toggle(c.slug)}
                  aria-label={c.slug}
                />
                {c.nome} <span className="mono nowrap">({c.slug})</span>
              </label>
            ))}
          </div>
        )}
        <label className="checkbox" style={{ marginTop: 8 }}>
          <input type="checkbox" checked={allClinics} onChange={(e) => setAllClinics(e.target.checked)} />
          All clinics (<code>*</code>), including clinics created later
        </label>
        {errors.tenants ? (
          <div className="error-text" role="alert">
            {englishMessage(errors.tenants)}
          </div>
        ) : (
          <div className="hint">
            A token used on another clinic gets 403. Choose all clinics only when that is what the script needs.
          </div>
        )}
      </fieldset>
      <Field
        id="token-expires"
        label="Expires in (days)"
        error={errors.expires_in_days}
        hint={`Default ${OPERATOR_TOKEN_DEFAULT_DAYS}, at most ${OPERATOR_TOKEN_MAX_DAYS}. After that the token answers 401; issue a new one.`}
      >
        <input
          id="token-expires"
          inputMode="numeric"
          value={days}
          onChange={(e) => setDays(e.target.value)}
          style={{ width: 120 }}
        />
      </Field>
      <label className="checkbox" style={{ marginBottom: 4 }}>
        <input type="checkbox" checked={clone} onChange={(e) => setClone(e.target.checked)} data-testid="token-clone" />
        May create ephemeral clinics (clone) from these clinics
      </label>
      <div className="hint">
        Off by default. The token then also resets, snapshots and drops the clinics it cloned, and nothing else.
      </div>
    </FormDialog>
  );
}

/** The only place a token is ever shown: right after issue, once. */
function TokenShownOnce({ issued, onClose }: { issued: IssuedOperatorToken; onClose: () => void }) {
  return (
    <ShownOnceDialog
      title={`Token #${issued.id} issued`}
      storedLabel="I have stored the token safely"
      onClose={onClose}
      warning={
        <>
          <strong>Copy the token now — it will not be shown again.</strong>
          <div>
            The gateway keeps only a hash of it. Put it in your CI secrets; revoke it here when it is no longer needed.
          </div>
        </>
      }
    >
      <p style={{ marginTop: 0 }}>
        For <Clinics tenants={issued.tenants} />, until {formatDate(issued.expires_at)}.
      </p>
      <CopyableValue
        label="Operator token (Authorization: Bearer …)"
        value={issued.token}
        testId="issued-operator-token"
        copyLabel="Copy token"
      />
      <div className="secret-label">Reset a clinic from a script or a test's beforeEach</div>
      <pre className="mono" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
        {resetSnippet(issued.token, issued.tenants === ALL_TENANTS ? 'demo' : issued.tenants[0])}
      </pre>
    </ShownOnceDialog>
  );
}

function RevokeDialog({ token, onClose }: { token: OperatorToken; onClose: () => void }) {
  const revoke = useRevokeOperatorToken();
  return (
    <ConfirmDialog
      title={`Revoke token #${token.id}?`}
      label="Revoke token"
      variant="danger"
      pending={revoke.isPending}
      error={revoke.error}
      errorTitle="The token was not revoked"
      onConfirm={() => revoke.mutate(token.id, { onSuccess: onClose })}
      onClose={onClose}
    >
      <p style={{ marginTop: 0 }}>
        <strong>{token.label}</strong> (<code>{token.prefix}</code>) stops working at once, for good. Scripts using it
        get 401.
      </p>
    </ConfirmDialog>
  );
}

export function TokensPage() {
  const tokens = useOperatorTokens();
  const remove = useRemoveOperatorToken();
  // A viewer issues, revokes and removes nothing (the API refuses it: 403 ADMIN_FORBIDDEN).
  const canWrite = useCanWrite();
  const [issuing, setIssuing] = useState(false);
  const [issued, setIssued] = useState<IssuedOperatorToken | null>(null);
  const [revoking, setRevoking] = useState<OperatorToken | null>(null);
  return (
    <>
      <PageHeader
        title="Operator tokens"
        description={
          <>
            For scripts and QA: the automation routes (
            <code>POST /admin/api/automation/tenants/&lt;slug&gt;/reset</code>) take{' '}
            <code>Authorization: Bearer &lt;token&gt;</code> instead of a console session. A token opens nothing else,
            acts only on the clinics it was issued for (403 elsewhere) and expires (401 after).
          </>
        }
        actions={
          canWrite && (
            <Button variant="primary" onClick={() => setIssuing(true)}>
              + New token
            </Button>
          )
        }
      />
      <ErrorBanner error={tokens.error ?? remove.error} title="Tokens could not be loaded or removed" />
      <section className="card" aria-label="Operator tokens">
        <ListTable
          pending={tokens.isPending}
          rows={tokens.data}
          empty={<EmptyState title="No operator tokens yet">Issue one for your test suite or CI.</EmptyState>}
          columns={['Label', 'Token', 'Clinics', 'Issued by', 'Status', 'Dates']}
          rowKey={(t) => t.id}
          cells={(t) => (
            <>
              <td>{breakable(t.label)}</td>
              <td className="mono nowrap">{t.prefix}</td>
              <td>
                <Clinics tenants={t.tenants} /> {t.clone && <Badge tone="info">clone</Badge>}
              </td>
              <td>{t.operator ? breakable(t.operator) : '—'}</td>
              <td>
                <StatusBadge status={t.status} />
              </td>
              <td style={{ fontSize: 13 }}>
                <div className="nowrap">
                  <span className="muted">Created</span> {formatDate(t.created_at)}
                </div>
                <div className="nowrap">
                  <span className="muted">{t.status === 'expired' ? 'Expired' : 'Expires'}</span>{' '}
                  {formatDate(t.expires_at)}
                </div>
                <div className="nowrap">
                  <span className="muted">Used</span> {t.last_used_at ? formatDate(t.last_used_at) : 'never'}
                </div>
              </td>
            </>
          )}
          actions={(t) =>
            canWrite &&
            (t.status === 'active' ? (
              <Button
                className="btn-sm"
                variant="danger"
                onClick={() => setRevoking(t)}
                aria-label={`Revoke token ${t.id}`}
              >
                Revoke
              </Button>
            ) : (
              <Button
                className="btn-sm"
                onClick={() => remove.mutate(t.id)}
                disabled={remove.isPending}
                aria-label={`Remove token ${t.id} from the list`}
              >
                Remove
              </Button>
            ))
          }
        />
      </section>
      {issuing && (
        <IssueDialog
          onClose={() => setIssuing(false)}
          onIssued={(t) => {
            setIssuing(false);
            setIssued(t);
          }}
        />
      )}
      {issued && <TokenShownOnce issued={issued} onClose={() => setIssued(null)} />}
      {revoking && <RevokeDialog token={revoking} onClose={() => setRevoking(null)} />}
    </>
  );
}
