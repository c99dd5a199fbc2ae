import { useState, type FormEvent } from 'react';
import { issueKeySchema, SCOPE_PRESETS, updateKeySchema } from '../../../../contracts/admin/keys.ts';
import { ApiError } from '../../lib/api.ts';
import { issuesToFields } from '../../lib/messages.ts';
import { Button, CopyButton, Dialog, ErrorBanner, Field, ShownOnceDialog } from '../../lib/ui.tsx';
import { useIssueKey, useMedicos, useUpdateKey, type Credentials, type KeySummary } from './api.ts';
import { MedicoSelect } from './MedicoSelect.tsx';
import { ScopePicker } from './ScopePicker.tsx';

/**
 * README § First signed call, filled in for this key and this appliance: bash, openssl and curl, nothing
 * else. The secret is in it because this dialog is the one place it is shown.
 */
export function firstCallSnippet(origin: string, apiKey: string, apiSecret: string): string {
  return [
    `KEY='${apiKey}'`,
    `SECRET='${apiSecret}'`,
    'TS=$(date +%s)',
    `SIG=$(printf '%s.GET /v1/ping\\n' "$TS" | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.*= //')`,
    `curl -s ${origin}/v1/ping -H "X-API-Key: $KEY" -H "X-Timestamp: $TS" -H "X-Signature: $SIG"`,
  ].join('\n');
}

export function IssueKeyDialog({
  tenant,
  tenantName,
  onClose,
  onIssued,
}: {
  tenant: string;
  /** The clinic's name (the title names it; the slug when unknown). */
  tenantName?: string;
  onClose: () => void;
  onIssued: (c: Credentials) => void;
}) {
  const issue = useIssueKey(tenant);
  const medicos = useMedicos(tenant);
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<string[]>([...SCOPE_PRESETS['read-only']]);
  const [medicoId, setMedicoId] = useState(0);
  const [errors, setErrors] = useState<Record<string, string>>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = issueKeySchema.safeParse({ label, scopes, medico_id: medicoId });
    if (!parsed.success) return setErrors(issuesToFields(parsed.error.issues));
    setErrors({});
    issue.mutate(parsed.data, {
      onSuccess: onIssued,
      onError: (error) => error instanceof ApiError && setErrors(error.fieldErrors()),
    });
  };

  return (
    <Dialog open title={`New API key · ${tenantName ?? tenant}`} onClose={onClose} wide
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" form="issue-key-form" variant="primary" disabled={issue.isPending}>
            {issue.isPending ? 'Issuing…' : 'Issue key'}
          </Button>
        </>
      }
    >
      <form id="issue-key-form" onSubmit={submit} noValidate>
        <ErrorBanner error={issue.error} title="The key was not issued" />
        <Field id="key-label" label="Label" error={errors.label} hint="Who uses this key, e.g. “LIS integration – production”.">
          <input id="key-label" value={label} maxLength={100} onChange={(e) => setLabel(e.target.value)} autoFocus />
        </Field>
        <ScopePicker value={scopes} onChange={(next) => (setScopes(next), setErrors(({ scopes: _, ...rest }) => rest))} error={errors.scopes} />
        <Field
          id="key-medico"
          label="Bound doctor"
          error={errors.medico_id}
          hint="A bound key only sees that doctor's exams, reports and agendas (doctor auto-filter)."
        >
          <MedicoSelect id="key-medico" value={medicoId} onChange={setMedicoId} medicos={medicos.data} loading={medicos.isPending} />
        </Field>
      </form>
    </Dialog>
  );
}

export function EditKeyDialog({ tenant, apiKey, onClose }: { tenant: string; apiKey: KeySummary; onClose: () => void }) {
  const update = useUpdateKey();
  const medicos = useMedicos(tenant);
  const [label, setLabel] = useState(apiKey.label);
  const [scopes, setScopes] = useState<string[]>(apiKey.escopos);
  const [medicoId, setMedicoId] = useState(apiKey.medico_id);
  const [errors, setErrors] = useState<Record<string, string>>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = updateKeySchema.safeParse({ label, scopes, medico_id: medicoId });
    if (!parsed.success) return setErrors(issuesToFields(parsed.error.issues));
    setErrors({});
    update.mutate(
      { id: apiKey.id, ...parsed.data },
      { onSuccess: onClose, onError: (error) => error instanceof ApiError && setErrors(error.fieldErrors()) },
    );
  };

  return (
    <Dialog open title={`Edit key #${apiKey.id}`} onClose={onClose} wide
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" form="edit-key-form" variant="primary" disabled={update.isPending}>
            {update.isPending ? 'Saving…' : 'Save changes'}
          </Button>
        </>
      }
    >
      <form id="edit-key-form" onSubmit={submit} noValidate>
        <ErrorBanner error={update.error} title="The key was not changed" />
        <p className="muted" style={{ marginTop: 0 }}>
          <code>{apiKey.api_key_masked}</code> — changes apply to the next request signed with this key.
        </p>
        <Field id="edit-label" label="Label" error={errors.label}>
          <input id="edit-label" value={label} maxLength={100} onChange={(e) => setLabel(e.target.value)} />
        </Field>
        <ScopePicker value={scopes} onChange={(next) => (setScopes(next), setErrors(({ scopes: _, ...rest }) => rest))} error={errors.scopes} />
        <Field id="edit-medico" label="Bound doctor" error={errors.medico_id}>
          <MedicoSelect id="edit-medico" value={medicoId} onChange={setMedicoId} medicos={medicos.data} loading={medicos.isPending} />
        </Field>
      </form>
    </Dialog>
  );
}

/** The only place a secret is ever shown: right after issue or rotation, once. */
export function SecretDialog({ credentials, rotated, onClose }: { credentials: Credentials; rotated: boolean; onClose: () => void }) {
  const snippet = firstCallSnippet(window.location.origin, credentials.api_key, credentials.api_secret);
  return (
    <ShownOnceDialog
      title={rotated ? `New secret for key #${credentials.chave_id}` : `Key #${credentials.chave_id} issued`}
      storedLabel="I have stored the secret safely"
      onClose={onClose}
      warning={
        <>
          <strong>Copy the secret now — it will not be shown again.</strong>
          <div>
            The gateway keeps it encrypted and never displays it. {rotated ? 'The previous secret stopped working at once. ' : ''}
            Store it in a vault or on the integrator's server, never in a browser.
          </div>
        </>
      }
    >
      <div className="secret-label" id="issued-api-key-label">API key (X-API-Key)</div>
      <div className="secret-row">
        <div className="value" role="textbox" aria-readonly="true" aria-labelledby="issued-api-key-label" data-testid="issued-api-key">
          {credentials.api_key}
        </div>
        <CopyButton value={credentials.api_key} label="Copy key" />
      </div>
      <div className="secret-label" id="issued-api-secret-label">API secret</div>
      <div className="secret-row">
        <div className="value" role="textbox" aria-readonly="true" aria-labelledby="issued-api-secret-label" data-testid="issued-api-secret">
          {credentials.api_secret}
        </div>
        <CopyButton value={credentials.api_secret} label="Copy secret" />
      </div>
      <div className="secret-label" id="first-call-label">
        First signed call (bash, openssl and curl)
      </div>
      <p className="hint" style={{ margin: '0 0 6px' }}>
        Paste it into a terminal: it signs <code>GET /v1/ping</code> with this key and should answer 200 with the key's clinic and scopes.
      </p>
      <div className="snippet">
        <pre className="json" data-testid="first-call" aria-labelledby="first-call-label">
          {snippet}
        </pre>
        <CopyButton value={snippet} label="Copy command" />
      </div>
    </ShownOnceDialog>
  );
}

export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  danger,
  pending,
  error,
  onConfirm,
  onClose,
}: {
  title: string;
  children: React.ReactNode;
  confirmLabel: string;
  danger?: boolean;
  pending: boolean;
  error: unknown;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog
      open
      title={title}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant={danger ? 'danger' : 'primary'} className={danger ? 'solid' : ''} onClick={onConfirm} disabled={pending} autoFocus>
            {pending ? 'Working…' : confirmLabel}
          </Button>
        </>
      }
    >
      <ErrorBanner error={error} />
      {children}
    </Dialog>
  );
}
