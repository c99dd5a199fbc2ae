import { useState } from 'react';
import { faultSchema, FAULT_METHODS } from '../../../../contracts/admin/faults.ts';
import { FaultSwitchboard } from '../../lib/fault-switchboard.tsx';
import { clinicOptions, Select, valueOptions } from '../../lib/forms.tsx';
import { Badge, DayAndTime, Field } from '../../lib/ui.tsx';
import { ClinicName, Code, useClinicDirectory } from '../../lib/vocabulary.tsx';
import { useBackendFaults } from './api.ts';

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
const methodLabel = (method: string) => (method === '*' ? 'Any' : method);

export function FaultsPage() {
  const switches = useBackendFaults();
  const tenants = useClinicDirectory();
  const [form, setForm] = useState({
    tenant: '*',
    method: '*',
    path: '/v1/pacientes*',
    kind: 'http500',
    latency_ms: '0',
    failure_rate: '1',
  });
  const set = (name: keyof typeof form) => (value: string) => setForm({ ...form, [name]: value });
  const typed = (name: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => set(name)(e.target.value);

  return (
    <FaultSwitchboard
      title="Backend faults"
      description="Make the simulated clinic backend fail on purpose, so an integrator can watch their client handle 503 and 504."
      noun="fault"
      switches={switches}
      schema={faultSchema}
      input={{ ...form, latency_ms: Number(form.latency_ms || 0), failure_rate: Number(form.failure_rate) }}
      fields={(errors) => (
        <>
          <Field id="fault-tenant" label="Clinic" error={errors.tenant}>
            <Select
              id="fault-tenant"
              value={form.tenant}
              onChange={set('tenant')}
              options={clinicOptions(tenants.data)}
              blank="Every clinic"
              blankValue="*"
            />
          </Field>
          <Field id="fault-method" label="Method">
            <Select
              id="fault-method"
              value={form.method}
              onChange={set('method')}
              options={valueOptions(FAULT_METHODS, methodLabel)}
            />
          </Field>
          <Field
            id="fault-path"
            label="API path (glob)"
            error={errors.path}
            hint="* matches anything, e.g. /v1/exames/*"
          >
            <input id="fault-path" className="mono" value={form.path} onChange={typed('path')} />
          </Field>
          <Field id="fault-kind" label="Fault" hint={`Client sees ${effectOf(form.kind)}`}>
            <Select id="fault-kind" value={form.kind} onChange={set('kind')} options={KINDS} />
          </Field>
          <div className="grid-2" style={{ gap: '0 8px' }}>
            <Field id="fault-latency" label="Latency ms" error={errors.latency_ms}>
              <input id="fault-latency" inputMode="numeric" value={form.latency_ms} onChange={typed('latency_ms')} />
            </Field>
            <Field id="fault-rate" label="Rate 0–1" error={errors.failure_rate}>
              <input id="fault-rate" inputMode="decimal" value={form.failure_rate} onChange={typed('failure_rate')} />
            </Field>
          </div>
        </>
      )}
      empty={{ title: 'No faults — the backend behaves normally', takesEffect: 'on the next request' }}
      testId="backend-faults"
      columns={['Fault', 'Clinic', 'Route', 'Latency · rate', { label: 'Hits', title: 'Requests it matched' }, 'Since']}
      cells={(f) => (
        <>
          <td>
            <span title={f.kind} data-kind={f.kind}>
              <Badge tone={f.kind === 'latency' ? 'info' : 'bad'}>{kindLabel(f.kind)}</Badge>
            </span>
            <div className="hint">Client sees {effectOf(f.kind) ? <Code>{effectOf(f.kind)}</Code> : '—'}</div>
          </td>
          <td>
            {f.tenant === '*' || f.tenant === null ? (
              'Every clinic'
            ) : (
              <ClinicName slug={f.tenant} nome={tenants.nameOf(f.tenant)} />
            )}
          </td>
          <td>
            <span className="mono">{methodLabel(f.method)}</span> <Code>{f.path}</Code>
          </td>
          <td className="mono nowrap">
            {f.latency_ms ? `${f.latency_ms} ms` : '—'} · {Math.round(f.failure_rate * 100)}%
          </td>
          <td className="mono">{f.hits}</td>
          <td className="col-time">
            <DayAndTime iso={f.criado_em} />
          </td>
        </>
      )}
    />
  );
}
