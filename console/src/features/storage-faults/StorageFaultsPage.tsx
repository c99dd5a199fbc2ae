import { useState } from 'react';
import { storageFaultSchema } from '../../../../contracts/admin/storage-faults.ts';
import { FaultSwitchboard } from '../../lib/fault-switchboard.tsx';
import { clinicOptions, Select } from '../../lib/forms.tsx';
import { Badge, Field, formatDate } from '../../lib/ui.tsx';
import { ClinicName, Code, useClinicDirectory } from '../../lib/vocabulary.tsx';
import { useStorageFaults } from './api.ts';

const EFFECT = '500 RES_ARQUIVO_S3_FALHA instead of the 302 to the file';

/**
 * Storage faults, like the backend's (issue 22 § 5): while one matches a clinic, the gateway cannot presign
 * its files, so every file download (exam images, report PDFs, record attachments) answers 500
 * RES_ARQUIVO_S3_FALHA instead of redirecting. Kept in memory: a restart clears them.
 */
export function StorageFaultsPage() {
  const switches = useStorageFaults();
  const clinics = useClinicDirectory();
  const [form, setForm] = useState({ tenant: '*', failure_rate: '1' });

  return (
    <FaultSwitchboard
      title="Storage faults"
      description="Make the file storage fail on purpose: file downloads of a clinic answer 500 RES_ARQUIVO_S3_FALHA, so an integrator can watch their client handle it."
      noun="storage fault"
      switches={switches}
      schema={storageFaultSchema}
      input={{ tenant: form.tenant, failure_rate: Number(form.failure_rate) }}
      fields={(errors) => (
        <>
          <Field id="storage-fault-tenant" label="Clinic" error={errors.tenant}>
            <Select
              id="storage-fault-tenant"
              value={form.tenant}
              onChange={(tenant) => setForm({ ...form, tenant })}
              options={clinicOptions(clinics.data)}
              blank="Every clinic"
              blankValue="*"
            />
          </Field>
          <Field
            id="storage-fault-rate"
            label="Rate 0–1"
            error={errors.failure_rate}
            hint="1 fails every download; 0.5 about half of them."
          >
            <input
              id="storage-fault-rate"
              inputMode="decimal"
              value={form.failure_rate}
              onChange={(e) => setForm({ ...form, failure_rate: e.target.value })}
            />
          </Field>
          <div className="field">
            <span className="label">Client sees</span>
            <div className="hint" style={{ paddingTop: 6 }}>
              <Code>{EFFECT}</Code>
            </div>
          </div>
        </>
      )}
      empty={{ title: 'No storage faults — files download normally', takesEffect: 'on the next download' }}
      testId="storage-faults"
      columns={[
        'ID',
        'Clinic',
        'Fault',
        'Rate',
        { label: 'Hits', title: 'Downloads it matched, failed or not' },
        'Since',
      ]}
      cells={(f) => (
        <>
          <td className="mono">#{f.id}</td>
          <td>{f.tenant === '*' ? 'Every clinic' : <ClinicName slug={f.tenant} nome={clinics.nameOf(f.tenant)} />}</td>
          <td>
            <Badge tone="bad">File storage error</Badge>
          </td>
          <td className="mono">{Math.round(f.failure_rate * 100)}%</td>
          <td className="mono">{f.hits}</td>
          <td className="nowrap">{formatDate(f.criado_em)}</td>
        </>
      )}
    />
  );
}
