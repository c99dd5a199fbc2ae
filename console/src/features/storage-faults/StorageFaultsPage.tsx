import { useState, type FormEvent } from 'react';
import { storageFaultSchema } from '../../../../contracts/admin/storage-faults.ts';
import { ApiError } from '../../lib/api.ts';
import { ClinicSelect } from '../../lib/forms.tsx';
import { useCanWrite } from '../../lib/role.ts';
import { ActionsCell, DataTable, ListState } from '../../lib/table.tsx';
import { Badge, Button, EmptyState, ErrorBanner, Field, PageHeader, SectionCard, formatDate } from '../../lib/ui.tsx';
import { ClinicName, Code, useClinicDirectory } from '../../lib/vocabulary.tsx';
import { useAddStorageFault, useClearStorageFaults, useRemoveStorageFault, useStorageFaults } from './api.ts';

const EFFECT = '500 RES_ARQUIVO_S3_FALHA instead of the 302 to the file';

/**
 * Storage faults, like the backend's (issue 22 § 5): while one matches a clinic, the gateway cannot presign
 * its files, so every file download (exam images, report PDFs, record attachments) answers 500
 * RES_ARQUIVO_S3_FALHA instead of redirecting. Kept in memory: a restart clears them.
 */
export function StorageFaultsPage() {
  const faults = useStorageFaults();
  const clinics = useClinicDirectory();
  const add = useAddStorageFault();
  const remove = useRemoveStorageFault();
  const clear = useClearStorageFaults();
  const [form, setForm] = useState({ tenant: '*', failure_rate: '1' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  // A viewer sees the faults; switching them is an admin's (the console API refuses a viewer's write anyway).
  const canWrite = useCanWrite();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = storageFaultSchema.safeParse({ tenant: form.tenant, failure_rate: Number(form.failure_rate) });
    if (!parsed.success) return setErrors(Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message])));
    setErrors({});
    add.mutate(parsed.data, { onError: (e) => e instanceof ApiError && setErrors(e.fieldErrors()) });
  };

  return (
    <>
      <PageHeader
        title="Storage faults"
        description="Make the file storage fail on purpose: file downloads of a clinic answer 500 RES_ARQUIVO_S3_FALHA, so an integrator can watch their client handle it."
        actions={
          canWrite && faults.data?.length ? (
            <Button variant="danger" onClick={() => clear.mutate()} disabled={clear.isPending}>
              Turn all storage faults off
            </Button>
          ) : null
        }
      />
      {canWrite && (
        <form className="card card-pad" onSubmit={submit} noValidate aria-label="New storage fault" style={{ marginBottom: 16 }}>
          <ErrorBanner error={add.error} title="The storage fault was not added" />
          <div className="grid-form">
            <Field id="storage-fault-tenant" label="Clinic" error={errors.tenant}>
              <ClinicSelect id="storage-fault-tenant" value={form.tenant} onChange={(tenant) => setForm({ ...form, tenant })} clinics={clinics.data} blank="Every clinic" blankValue="*" />
            </Field>
            <Field id="storage-fault-rate" label="Rate 0–1" error={errors.failure_rate} hint="1 fails every download; 0.5 about half of them.">
              <input id="storage-fault-rate" inputMode="decimal" value={form.failure_rate} onChange={(e) => setForm({ ...form, failure_rate: e.target.value })} />
            </Field>
            <div className="field">
              <span className="label">Client sees</span>
              <div className="hint" style={{ paddingTop: 6 }}>
                <Code>{EFFECT}</Code>
              </div>
            </div>
          </div>
          <div className="form-actions">
            <Button type="submit" variant="primary" disabled={add.isPending}>
              Turn storage fault on
            </Button>
          </div>
        </form>
      )}
      <ErrorBanner error={faults.error ?? remove.error ?? clear.error} title="Storage faults could not be loaded or changed" />
      <SectionCard
        label="Active storage faults"
        title="Active storage faults"
        meta={faults.data && <span className="muted">{faults.data.length} active · refreshed every 5 s</span>}
      >
        <ListState
          pending={faults.isPending}
          rows={faults.data}
          empty={<EmptyState title="No storage faults — files download normally">Add one above; it takes effect on the next download.</EmptyState>}
        >
          {(rows) => (
            <DataTable testId="storage-faults" actions columns={['ID', 'Clinic', 'Fault', 'Rate', { label: 'Hits', title: 'Downloads it matched, failed or not' }, 'Since']}>
              {rows.map((f) => (
                <tr key={f.id} data-fault-id={f.id}>
                  <td className="mono">#{f.id}</td>
                  <td>{f.tenant === '*' ? 'Every clinic' : <ClinicName slug={f.tenant} nome={clinics.nameOf(f.tenant)} />}</td>
                  <td>
                    <Badge tone="bad">File storage error</Badge>
                  </td>
                  <td className="mono">{Math.round(f.failure_rate * 100)}%</td>
                  <td className="mono">{f.hits}</td>
                  <td className="nowrap">{formatDate(f.criado_em)}</td>
                  <ActionsCell>
                    {canWrite && (
                      <Button className="btn-sm" onClick={() => remove.mutate(f.id)} aria-label={`Turn storage fault ${f.id} off`}>
                        Turn off
                      </Button>
                    )}
                  </ActionsCell>
                </tr>
              ))}
            </DataTable>
          )}
        </ListState>
      </SectionCard>
    </>
  );
}
