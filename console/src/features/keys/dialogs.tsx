import { useState, type ComponentProps, type ReactNode } from 'react';
import type { z } from 'zod';
import {
  issueKeySchema,
  KEY_EXPIRY_MAX_DAYS,
  SCOPE_PRESETS,
  updateKeySchema,
} from '../../../../contracts/admin/keys.ts';
import { CopyableSnippet, CopyableValue } from '../../lib/copy.tsx';
import { FormDialog, ShownOnceDialog } from '../../lib/dialogs.tsx';
import { useFieldErrors } from '../../lib/forms.tsx';
import { Field, formatDateFull } from '../../lib/ui.tsx';
import { useIssueKey, useMedicos, useUpdateKey, type Credentials, type KeySummary } from './api.ts';
import { MedicoSelect } from './MedicoSelect.tsx';
import { ScopePicker } from './ScopePicker.tsx';

/**
 * The README's first signed call, filled in for this key and this appliance: bash, openssl and curl, nothing
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

interface KeyDraft {
  label: string;
  scopes: string[];
  medico_id: number;
  /** The key's expiry now (ISO 8601), null: never. */
  expires_at: string | null;
}

type ExpiryMode = 'never' | 'days' | 'date';

/** ISO 8601 → the `datetime-local` input's value, in the browser's zone. */
function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * What the form sends about the expiry: nothing when it is unchanged (an edit of an expired key's label must not
 * resend its past expiry), `expires_in_days`, `expires_at` (the local date-time as UTC), or null to clear it.
 */
function expiryFields(
  mode: ExpiryMode,
  days: string,
  date: string,
  initial: string | null,
): { expires_at?: string | null; expires_in_days?: number } {
  if (mode === 'days') return { expires_in_days: Number(days) };
  if (mode === 'date') {
    if (date === '') return { expires_at: '' };
    if (initial && date === toLocalInput(initial)) return {};
    const parsed = new Date(date);
    return { expires_at: Number.isNaN(parsed.getTime()) ? date : parsed.toISOString() };
  }
  return initial ? { expires_at: null } : {};
}

/**
 * A key's label, scopes and bound doctor, checked by `schema` and handed to `send`: the form a key is issued
 * with and the one that edits it. `idPrefix` names the fields (`key-label`, `edit-medico`…).
 */
function KeyFormDialog<S extends z.ZodType>({
  tenant,
  initial,
  schema,
  send,
  idPrefix,
  focusLabel,
  labelHint,
  medicoHint,
  intro,
  ...dialog
}: Omit<ComponentProps<typeof FormDialog>, 'onSubmit' | 'children'> & {
  tenant: string;
  initial: KeyDraft;
  schema: S;
  send: (input: z.output<S>, onError: (error: unknown) => void) => void;
  idPrefix: string;
  focusLabel?: boolean;
  labelHint?: string;
  medicoHint?: string;
  /** Above the fields: what is being edited. */
  intro?: ReactNode;
}) {
  const medicos = useMedicos(tenant);
  const [label, setLabel] = useState(initial.label);
  const [scopes, setScopes] = useState<string[]>(initial.scopes);
  const [medicoId, setMedicoId] = useState(initial.medico_id);
  const [expiryMode, setExpiryMode] = useState<ExpiryMode>(initial.expires_at ? 'date' : 'never');
  const [expiryDays, setExpiryDays] = useState('30');
  const [expiryDate, setExpiryDate] = useState(toLocalInput(initial.expires_at));
  const { errors, setErrors, submit } = useFieldErrors();
  const expiry = expiryFields(expiryMode, expiryDays, expiryDate, initial.expires_at);

  return (
    <FormDialog {...dialog} wide onSubmit={submit(schema, { label, scopes, medico_id: medicoId, ...expiry }, send)}>
      {intro}
      <Field id={`${idPrefix}-label`} label="Label" error={errors.label} hint={labelHint}>
        <input
          id={`${idPrefix}-label`}
          value={label}
          maxLength={100}
          onChange={(e) => setLabel(e.target.value)}
          // biome-ignore lint/a11y/noAutofocus: a dialog opens on its first field
          autoFocus={focusLabel}
        />
      </Field>
      <ScopePicker
        value={scopes}
        onChange={(next) => {
          setScopes(next);
          setErrors(({ scopes: _, ...rest }) => rest);
        }}
        error={errors.scopes}
      />
      <Field id={`${idPrefix}-medico`} label="Bound doctor" error={errors.medico_id} hint={medicoHint}>
        <MedicoSelect
          id={`${idPrefix}-medico`}
          value={medicoId}
          onChange={setMedicoId}
          medicos={medicos.data}
          loading={medicos.isPending}
        />
      </Field>
      <div className="expiry-fields">
        <Field
          id={`${idPrefix}-expiry`}
          label="Expires"
          hint="An expired key is refused with AUTH_KEY_REVOKED (appliance clock)."
        >
          <select
            id={`${idPrefix}-expiry`}
            value={expiryMode}
            onChange={(e) => {
              setExpiryMode(e.target.value as ExpiryMode);
              setErrors(({ expires_at: _a, expires_in_days: _d, ...rest }) => rest);
            }}
          >
            <option value="never">Never</option>
            <option value="days">In a number of days</option>
            <option value="date">On a date</option>
          </select>
        </Field>
        {expiryMode === 'days' && (
          <Field
            id={`${idPrefix}-expiry-days`}
            label="Days from now"
            error={errors.expires_in_days}
            hint={`1 to ${KEY_EXPIRY_MAX_DAYS} (5 years).`}
          >
            <input
              id={`${idPrefix}-expiry-days`}
              type="number"
              inputMode="numeric"
              min={1}
              max={KEY_EXPIRY_MAX_DAYS}
              value={expiryDays}
              onChange={(e) => setExpiryDays(e.target.value)}
            />
          </Field>
        )}
        {expiryMode === 'date' && (
          <Field
            id={`${idPrefix}-expiry-date`}
            label="Expiry date and time"
            error={errors.expires_at ?? errors.expires_in_days}
            hint="Your browser's time zone; at most 5 years ahead."
          >
            <input
              id={`${idPrefix}-expiry-date`}
              type="datetime-local"
              value={expiryDate}
              onChange={(e) => setExpiryDate(e.target.value)}
            />
          </Field>
        )}
      </div>
    </FormDialog>
  );
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
  return (
    <KeyFormDialog
      title={`New API key · ${tenantName ?? tenant}`}
      label="Issue key"
      pendingLabel="Issuing…"
      pending={issue.isPending}
      onClose={onClose}
      tenant={tenant}
      initial={{ label: '', scopes: [...SCOPE_PRESETS['read-only']], medico_id: 0, expires_at: null }}
      schema={issueKeySchema}
      send={(input, onError) => issue.mutate(input, { onSuccess: onIssued, onError })}
      idPrefix="key"
      focusLabel
      labelHint="Who uses this key, e.g. “LIS integration – production”."
      medicoHint="A bound key only sees that doctor's exams, reports and agendas (doctor auto-filter)."
      error={issue.error}
      errorTitle="The key was not issued"
    />
  );
}

export function EditKeyDialog({
  tenant,
  apiKey,
  onClose,
}: {
  tenant: string;
  apiKey: KeySummary;
  onClose: () => void;
}) {
  const update = useUpdateKey();
  return (
    <KeyFormDialog
      title={`Edit key #${apiKey.id}`}
      label="Save changes"
      pendingLabel="Saving…"
      pending={update.isPending}
      onClose={onClose}
      tenant={tenant}
      initial={{
        label: apiKey.label,
        scopes: apiKey.escopos,
        medico_id: apiKey.medico_id,
        expires_at: apiKey.expires_at,
      }}
      schema={updateKeySchema}
      send={(input, onError) => update.mutate({ id: apiKey.id, ...input }, { onSuccess: onClose, onError })}
      idPrefix="edit"
      error={update.error}
      errorTitle="The key was not changed"
      intro={
        <p className="muted" style={{ marginTop: 0 }}>
          <code>{apiKey.api_key_masked}</code> — changes apply to the next request signed with this key.
          {apiKey.expires_at && (
            <>
              {' '}
              It {apiKey.expired ? 'expired' : 'expires'}{' '}
              <span data-testid="edit-expires-at">{formatDateFull(apiKey.expires_at)}</span>.
            </>
          )}
        </p>
      }
    />
  );
}

/** The only place a secret is ever shown: right after issue or rotation, once. */
export function SecretDialog({
  credentials,
  rotated,
  onClose,
}: {
  credentials: Credentials;
  rotated: boolean;
  onClose: () => void;
}) {
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
            The gateway keeps it encrypted and never displays it.{' '}
            {rotated ? 'The previous secret stopped working at once. ' : ''}
            Store it in a vault or on the integrator's server, never in a browser.
          </div>
          {credentials.key.expires_at && (
            <div data-testid="issued-expires-at">
              The key {credentials.key.expired ? 'expired' : 'expires'} {formatDateFull(credentials.key.expires_at)}
              {rotated ? ' (rotation keeps the expiry)' : ''}.
            </div>
          )}
        </>
      }
    >
      <CopyableValue
        label="API key (X-API-Key)"
        labelId="issued-api-key-label"
        value={credentials.api_key}
        testId="issued-api-key"
        copyLabel="Copy key"
      />
      <CopyableValue
        label="API secret"
        labelId="issued-api-secret-label"
        value={credentials.api_secret}
        testId="issued-api-secret"
        copyLabel="Copy secret"
      />
      <div className="secret-label" id="first-call-label">
        First signed call (bash, openssl and curl)
      </div>
      <p className="hint" style={{ margin: '0 0 6px' }}>
        Paste it into a terminal: it signs <code>GET /v1/ping</code> with this key and should answer 200 with the key's
        clinic and scopes.
      </p>
      <CopyableSnippet text={snippet} testId="first-call" labelledBy="first-call-label" copyLabel="Copy command" />
    </ShownOnceDialog>
  );
}
