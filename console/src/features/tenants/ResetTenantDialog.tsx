import { useState, type FormEvent } from 'react';
import { Button, Dialog, ErrorBanner, Field } from '../../lib/ui.tsx';
import { useResetTenant, type TenantResetResult } from './api.ts';

function Summary({ result }: { result: TenantResetResult }) {
  return (
    <div className="banner banner-info" role="status" data-testid="reset-result">
      <strong>
        {result.nome} ({result.slug}) is back to its first-start state in {result.duration_ms} ms.
      </strong>
      <ul style={{ margin: '6px 0 0', paddingLeft: 18 }}>
        <li>{result.rows_restored} rows restored (database {result.database_ms} ms)</li>
        <li>
          {result.idempotency_keys_removed} idempotency key(s) and {result.idempotency_markers_removed} backend marker(s) forgotten
        </li>
        {result.audit_entries_removed !== null && <li>{result.audit_entries_removed} audit entries deleted</li>}
        {result.files_removed !== null && <li>{result.files_removed} uploaded file(s) deleted</li>}
      </ul>
    </div>
  );
}

/** Confirmation first: the slug is typed back, as on the CLI, because a reset cannot be undone. */
export function ResetTenantDialog({ slug, onClose }: { slug: string; onClose: () => void }) {
  const reset = useResetTenant(slug);
  const [audit, setAudit] = useState(false);
  const [files, setFiles] = useState(false);
  const [typed, setTyped] = useState('');
  const confirmed = typed.trim() === slug;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (confirmed) reset.mutate({ audit, files });
  };

  if (reset.data) {
    return (
      <Dialog open title={`Clinic ${slug} reset`} onClose={onClose} footer={<Button variant="primary" onClick={onClose}>Done</Button>}>
        <Summary result={reset.data} />
      </Dialog>
    );
  }

  return (
    <Dialog
      open
      title={`Reset ${slug}?`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" form="reset-tenant-form" variant="danger" className="solid" disabled={!confirmed || reset.isPending}>
            {reset.isPending ? 'Resetting…' : 'Reset clinic'}
          </Button>
        </>
      }
    >
      <form id="reset-tenant-form" onSubmit={submit} noValidate>
        <ErrorBanner error={reset.error} title="The clinic was not reset" />
        <div className="banner banner-warn" role="alert">
          <strong>Everything written to this clinic since its first start is lost.</strong>
          <div>
            Patients, exams, reports, appointments, records and settings go back to exactly what the first start created
            (same ids), and the idempotency keys used on it are forgotten. API keys stay valid.
          </div>
        </div>
        <label className="checkbox" style={{ marginBottom: 8 }}>
          <input type="checkbox" checked={audit} onChange={(e) => setAudit(e.target.checked)} />
          Also delete its audit entries (this reset is still audited)
        </label>
        <label className="checkbox" style={{ marginBottom: 12 }}>
          <input type="checkbox" checked={files} onChange={(e) => setFiles(e.target.checked)} />
          Also delete the files uploaded for it
        </label>
        <Field id="reset-confirm" label={`Type ${slug} to confirm`}>
          <input id="reset-confirm" value={typed} autoComplete="off" onChange={(e) => setTyped(e.target.value)} autoFocus />
        </Field>
      </form>
    </Dialog>
  );
}
