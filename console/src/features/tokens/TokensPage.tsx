import { useState, type FormEvent } from 'react';
import { issueOperatorTokenSchema } from '../../../../server/admin/reset-schemas.ts';
import { ApiError } from '../../lib/api.ts';
import { Badge, Button, CopyButton, Dialog, EmptyState, ErrorBanner, Field, Loading, PageHeader, ShownOnceDialog, formatDate } from '../../lib/ui.tsx';
import { useIssueOperatorToken, useOperatorTokens, useRevokeOperatorToken, type IssuedOperatorToken, type OperatorToken } from './api.ts';

const resetSnippet = (token: string) =>
  `curl -fsS -X POST ${window.location.origin}/admin/api/automation/tenants/demo/reset \\\n  -H "Authorization: Bearer ${token}" -H "Content-Type: application/json" -d '{}'`;

function IssueDialog({ onClose, onIssued }: { onClose: () => void; onIssued: (t: IssuedOperatorToken) => void }) {
  const issue = useIssueOperatorToken();
  const [label, setLabel] = useState('');
  const [error, setError] = useState<string | undefined>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = issueOperatorTokenSchema.safeParse({ label });
    if (!parsed.success) return setError(parsed.error.issues[0]?.message);
    setError(undefined);
    issue.mutate(parsed.data, { onSuccess: onIssued, onError: (e) => e instanceof ApiError && setError(e.fieldErrors().label) });
  };
  return (
    <Dialog
      open
      title="New operator token"
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" form="issue-token-form" variant="primary" disabled={issue.isPending}>
            {issue.isPending ? 'Issuing…' : 'Issue token'}
          </Button>
        </>
      }
    >
      <form id="issue-token-form" onSubmit={submit} noValidate>
        <ErrorBanner error={issue.error} title="The token was not issued" />
        <Field id="token-label" label="Label" error={error} hint="Who uses it, e.g. “Playwright suite – CI”.">
          <input id="token-label" value={label} maxLength={100} onChange={(e) => setLabel(e.target.value)} autoFocus />
        </Field>
      </form>
    </Dialog>
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
          <div>The gateway keeps only a hash of it. Put it in your CI secrets; revoke it here when it is no longer needed.</div>
        </>
      }
    >
      <div className="secret-label">Operator token (Authorization: Bearer …)</div>
      <div className="secret-row">
        <div className="value" data-testid="issued-operator-token">
          {issued.token}
        </div>
        <CopyButton value={issued.token} label="Copy token" />
      </div>
      <div className="secret-label">Reset a clinic from a script or a test's beforeEach</div>
      <pre className="mono" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
        {resetSnippet(issued.token)}
      </pre>
    </ShownOnceDialog>
  );
}

function RevokeDialog({ token, onClose }: { token: OperatorToken; onClose: () => void }) {
  const revoke = useRevokeOperatorToken();
  return (
    <Dialog
      open
      title={`Revoke token #${token.id}?`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="danger" className="solid" disabled={revoke.isPending} onClick={() => revoke.mutate(token.id, { onSuccess: onClose })}>
            Revoke token
          </Button>
        </>
      }
    >
      <ErrorBanner error={revoke.error} title="The token was not revoked" />
      <p style={{ marginTop: 0 }}>
        <strong>{token.label}</strong> (<code>{token.prefix}</code>) stops working at once, for good. Scripts using it get 401.
      </p>
    </Dialog>
  );
}

export function TokensPage() {
  const tokens = useOperatorTokens();
  const [issuing, setIssuing] = useState(false);
  const [issued, setIssued] = useState<IssuedOperatorToken | null>(null);
  const [revoking, setRevoking] = useState<OperatorToken | null>(null);
  return (
    <>
      <PageHeader
        title="Operator tokens"
        description={
          <>
            For scripts and QA: the automation routes (<code>POST /admin/api/automation/tenants/&lt;slug&gt;/reset</code>) take{' '}
            <code>Authorization: Bearer &lt;token&gt;</code> instead of a console session. A token opens nothing else.
          </>
        }
        actions={
          <Button variant="primary" onClick={() => setIssuing(true)}>
            + New token
          </Button>
        }
      />
      <ErrorBanner error={tokens.error} title="Tokens could not be loaded" />
      <section className="card" aria-label="Operator tokens">
        {tokens.isPending ? (
          <Loading />
        ) : !tokens.data?.length ? (
          <EmptyState title="No operator tokens yet">Issue one for your test suite or CI.</EmptyState>
        ) : (
          <table className="data">
            <thead>
              <tr>
                <th>Label</th>
                <th>Token</th>
                <th>Issued by</th>
                <th>Created</th>
                <th>Last used</th>
                <th>Status</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {tokens.data.map((t) => (
                <tr key={t.id}>
                  <td>{t.label}</td>
                  <td className="mono">{t.prefix}</td>
                  <td>{t.operator ?? '—'}</td>
                  <td className="nowrap">{formatDate(t.created_at)}</td>
                  <td className="nowrap">{t.last_used_at ? formatDate(t.last_used_at) : 'never'}</td>
                  <td>{t.status === 'active' ? <Badge tone="ok">active</Badge> : <Badge tone="bad">revoked</Badge>}</td>
                  <td className="actions">
                    {t.status === 'active' && (
                      <Button className="btn-sm" variant="danger" onClick={() => setRevoking(t)} aria-label={`Revoke token ${t.id}`}>
                        Revoke
                      </Button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
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
