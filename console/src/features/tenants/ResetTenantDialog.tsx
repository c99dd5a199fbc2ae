import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import { Loading } from '../../lib/ui.tsx';
import { SlugConfirmedDialog } from './SlugConfirmedDialog.tsx';
import { tenantResetPolicyView } from '../../../../contracts/admin/tenants.ts';
import { useResetTenant, type TenantResetResult } from './api.ts';

/** Whether this appliance resets clinics: production refuses unless ALLOW_TENANT_RESET is set (fixed at start). */
const useResetPolicy = () =>
  useQuery({
    queryKey: ['tenant-reset-policy'],
    queryFn: () => api(tenantResetPolicyView, 'GET', '/tenant-reset-policy'),
    staleTime: Infinity,
  });

function Summary({ result }: { result: TenantResetResult }) {
  return (
    <div className="banner banner-info" role="status" data-testid="reset-result">
      <strong>
        {result.nome} ({result.slug}) is back to its first-start state in {result.duration_ms} ms.
      </strong>
      <ul style={{ margin: '6px 0 0', paddingLeft: 18 }}>
        <li>
          {result.rows_restored} rows restored (database {result.database_ms} ms)
        </li>
        <li>
          {result.idempotency_keys_removed} idempotency key(s) and {result.idempotency_markers_removed} backend
          marker(s) forgotten
        </li>
        {result.files_removed !== null && <li>{result.files_removed} uploaded file(s) deleted</li>}
        <li>The journal is kept; this reset is recorded in it (tenant.reset)</li>
      </ul>
    </div>
  );
}

/** Confirmation first: the slug is typed back, as on the CLI, because a reset cannot be undone. */
export function ResetTenantDialog({ slug, onClose }: { slug: string; onClose: () => void }) {
  const reset = useResetTenant(slug);
  const policy = useResetPolicy();
  const [files, setFiles] = useState(false);
  const allowed = policy.data?.allowed === true;
  return (
    <SlugConfirmedDialog
      slug={slug}
      verb={{ name: 'Reset', doing: 'Resetting…', done: 'reset' }}
      policy={policy}
      action={reset}
      onConfirm={() => reset.mutate({ files })}
      done={(result) => <Summary result={result} />}
      onClose={onClose}
    >
      {policy.isPending ? (
        <Loading />
      ) : policy.data && !policy.data.allowed ? (
        <div className="banner banner-warn" role="alert" data-testid="reset-disabled">
          <strong>Reset is disabled on this appliance.</strong>
          <div>
            It runs with <code>APP_ENV={policy.data.app_env}</code>: resetting a clinic is a development and test
            feature. To allow it anyway, restart the appliance with <code>{policy.data.opt_in_variable}=true</code>.
          </div>
        </div>
      ) : (
        <div className="banner banner-warn" role="alert">
          <strong>Everything written to this clinic since its first start is lost.</strong>
          <div>
            Patients, exams, reports, appointments, records and settings go back to exactly what the first start created
            (same ids), and the idempotency keys used on it are forgotten. API keys stay valid. The journal is kept: its
            entries stay, and this reset is recorded in it.
          </div>
        </div>
      )}
      <label className="checkbox" style={{ marginBottom: 12 }}>
        <input type="checkbox" checked={files} disabled={!allowed} onChange={(e) => setFiles(e.target.checked)} />
        Also delete the files uploaded for it
      </label>
    </SlugConfirmedDialog>
  );
}
