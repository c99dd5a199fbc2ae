import { useState, type FormEvent } from 'react';
import { faultSchema, FAULT_METHODS } from '../../../../contracts/admin/faults.ts';
import { ApiError } from '../../lib/api.ts';
import { ClinicSelect } from '../../lib/forms.tsx';
import { useCanWrite } from '../../lib/role.ts';
import { ActionsCell, DataTable, ListState } from '../../lib/table.tsx';
import { Badge, Button, EmptyState, ErrorBanner, Field, PageHeader, SectionCard, formatDate } from '../../lib/ui.tsx';
import { ClinicName, Code, useClinicDirectory } from '../../lib/vocabulary.tsx';
import { useAddFault, useClearFaults, useFaults, useRemoveFault } from './api.ts';

const KINDS: Array<{ value: string; label: string; effect: string }> = [
  { value: 'http500', label: 'Backend error (HTTP 500)', effect: '503 SERVICE_UNAVAILABLE' },
  { value: 'drop', label: 'Dropped connection', effect: '503 SERVICE_UNAVAILABLE' },
  { value: 'invalid_json', label: 'Truncated JSON', effect: '503 SERVICE_UNAVAILABLE' },
  { value: 'hang', label: 'No answer (hang)', effect: '504 SERVICE_TIMEOUT after the backend timeout' },
  { value: 'latency', label: 'Latency only', effect: 'slower 200s' },
];
const effectOf = (kind: string) => KINDS.find((k) => k.value === kind)?.effect ?? '';
/** `http500` → "Backend error (HTTP 500)"; a kind added to backend-sim later shows its code. */
const kindLabel = (kind: string) => KINDS.find((k) => k.value === kind)?.label ?? kind;

export function FaultsPage() {
  const faults = useFaults();
  const tenants = useClinicDirectory();
  const add = useAddFault();
  const remove = useRemoveFault();
  const clear = useClearFaults();
  const [form, setForm] = useState({ tenant: '*', method: '*', path: '/v1/pacientes*', kind: 'http500', latency_ms: '0', failure_rate: '1' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  // A viewer sees the faults; switching them is an admin's (the console API refuses a viewer's write anyway).
  const canWrite = useCanWrite();
  const set = (name: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setForm({ ...form, [name]: e.target.value });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = faultSchema.safeParse({ ...form, latency_ms: Number(form.latency_ms || 0), failure_rate: Number(form.failure_rate) });
    if (!parsed.success) return setErrors(Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message])));
    setErrors({});
    add.mutate(parsed.data, { onError: (e) => e instanceof ApiError && setErrors(e.fieldErrors()) });
  };

  return (
    <>
      <PageHeader
        title="Backend faults"
        description="Make the simulated clinic backend fail on purpose, so an integrator can watch their client handle 503 and 504."
        actions={
          canWrite && faults.data?.length ? (
            <Button variant="danger" onClick={() => clear.mutate()} disabled={clear.isPending}>
              Turn all faults off
            </Button>
          ) : null
        }
      />
      {canWrite && (
        <form className="card card-pad" onSubmit={submit} noValidate aria-label="New fault" style={{ marginBottom: 16 }}>
          <ErrorBanner error={add.error} title="The fault was not added" />
          <div className="grid-form">
            <Field id="fault-tenant" label="Clinic" error={errors.tenant}>
              <ClinicSelect id="fault-tenant" value={form.tenant} onChange={(tenant) => setForm({ ...form, tenant })} clinics={tenants.data} blank="Every clinic" blankValue="*" />
            </Field>
            <Field id="fault-method" label="Method">
              <select id="fault-method" value={form.method} onChange={set('method')}>
                {FAULT_METHODS.map((m) => (
                  <option key={m} value={m}>
                    {m === '*' ? 'Any' : m}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="fault-path" label="API path (glob)" error={errors.path} hint="* matches anything, e.g. /v1/exames/*">
              <input id="fault-path" className="mono" value={form.path} onChange={set('path')} />
            </Field>
            <Field id="fault-kind" label="Fault" hint={`Client sees ${effectOf(form.kind)}`}>
              <select id="fault-kind" value={form.kind} onChange={set('kind')}>
                {KINDS.map((k) => (
                  <option key={k.value} value={k.value}>
                    {k.label}
                  </option>
                ))}
              </select>
            </Field>
            <div className="grid-2" style={{ gap: '0 8px' }}>
              <Field id="fault-latency" label="Latency ms" error={errors.latency_ms}>
                <input id="fault-latency" inputMode="numeric" value={form.latency_ms} onChange={set('latency_ms')} />
              </Field>
              <Field id="fault-rate" label="Rate 0–1" error={errors.failure_rate}>
                <input id="fault-rate" inputMode="decimal" value={form.failure_rate} onChange={set('failure_rate')} />
              </Field>
            </div>
          </div>
          <div className="form-actions">
            <Button type="submit" variant="primary" disabled={add.isPending}>
              Turn fault on
            </Button>
          </div>
        </form>
      )}
      <ErrorBanner error={faults.error ?? remove.error ?? clear.error} title="Faults could not be loaded or changed" />
      <SectionCard
        label="Active faults"
        title="Active faults"
        meta={faults.data && <span className="muted">{faults.data.length} active · refreshed every 5 s</span>}
      >
        <ListState
          pending={faults.isPending}
          rows={faults.data}
          empty={<EmptyState title="No faults — the backend behaves normally">Add one above; it takes effect on the next request.</EmptyState>}
        >
          {(rows) => (
            <DataTable testId="backend-faults" actions columns={['Fault', 'Clinic', 'Route', 'Latency · rate', { label: 'Hits', title: 'Requests it matched' }, 'Since']}>
              {rows.map((f) => (
                <tr key={f.id} data-fault-id={f.id}>
                  <td>
                    <span title={f.kind} data-kind={f.kind}>
                      <Badge tone={f.kind === 'latency' ? 'info' : 'bad'}>{kindLabel(f.kind)}</Badge>
                    </span>
                    <div className="hint">Client sees {effectOf(f.kind) ? <Code>{effectOf(f.kind)}</Code> : '—'}</div>
                  </td>
                  <td>{f.tenant === '*' || f.tenant === null ? 'Every clinic' : <ClinicName slug={f.tenant} nome={tenants.nameOf(f.tenant)} />}</td>
                  <td>
                    <span className="mono">{f.method === '*' ? 'Any' : f.method}</span> <Code>{f.path}</Code>
                  </td>
                  <td className="mono nowrap">
                    {f.latency_ms ? `${f.latency_ms} ms` : '—'} · {Math.round(f.failure_rate * 100)}%
                  </td>
                  <td className="mono">{f.hits}</td>
                  <td className="nowrap">{formatDate(f.criado_em)}</td>
                  <ActionsCell>
                    {canWrite && (
                      <Button className="btn-sm" onClick={() => remove.mutate(f.id)} aria-label={`Turn fault ${f.id} off`}>
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
