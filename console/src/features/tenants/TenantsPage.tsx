import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { createTenantSchema, tenantSettingsSchema } from '../../../../contracts/admin/tenants.ts';
import { FormDialog } from '../../lib/dialogs.tsx';
import { useFieldErrors } from '../../lib/forms.tsx';
import { href, navigate, useLocation } from '../../lib/router.ts';
import { ListTable } from '../../lib/table.tsx';
import { Button, EmptyState, ErrorBanner, Field, Loading, PageHeader, SectionCard, DayAndTime } from '../../lib/ui.tsx';
import { useCanWrite } from '../../lib/role.ts';
import { ClinicName, StatusBadge } from '../../lib/vocabulary.tsx';
import {
  useConvenios,
  useCreateTenant,
  useDoctors,
  useSaveSettings,
  useTenantSettings,
  useTenants,
  useUnidades,
  type PickerOption,
  type TenantSettings,
} from './api.ts';
import { ResetTenantDialog } from './ResetTenantDialog.tsx';
import { CloneTenantDialog, DropTenantDialog } from './CloneTenantDialog.tsx';
import { SnapshotsPanel } from './SnapshotsPanel.tsx';

const FLAGS: Array<[keyof TenantSettings, string, string]> = [
  ['cpf_obrigatorio', 'CPF required', 'Patient create is refused without a CPF.'],
  ['celular_obrigatorio', 'Mobile phone required', 'Patient create is refused without a mobile number.'],
  ['solicitante_obrigatorio', 'Requesting doctor required', 'Exam create needs a requesting doctor.'],
  ['medico_laudo_obrigatorio', 'Reporting doctor required', 'Exam create needs a reporting doctor.'],
];
type DefaultKey = keyof TenantSettings['defaults'];
/** Each default with its label, the catalog it picks from and, for doctors, the role it needs. */
const DEFAULTS: Array<{ key: DefaultKey; label: string; from: 'unidades' | 'medicos' | 'convenios'; papel?: string }> =
  [
    { key: 'unidade_id', label: 'Default unit', from: 'unidades' },
    { key: 'convenio_id', label: 'Default insurer', from: 'convenios' },
    { key: 'medico_exame_id', label: 'Default exam doctor', from: 'medicos', papel: 'EXAME' },
    { key: 'medico_laudo_id', label: 'Default reporting doctor', from: 'medicos', papel: 'LAUDO' },
  ];

/** A select of the clinic's rows by name; a saved id that is no longer in the catalog stays visible as such. */
function DefaultPicker({
  id,
  value,
  options,
  loading,
  onChange,
}: {
  id: string;
  value: number | null;
  options: PickerOption[] | undefined;
  loading: boolean;
  onChange: (v: number | null) => void;
}) {
  const known = options?.some((o) => o.id === value);
  return (
    <select
      id={id}
      value={value ?? ''}
      disabled={loading}
      onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}
    >
      <option value="">{loading ? 'Loading…' : 'None (the integrator sends it)'}</option>
      {value !== null && !known && !loading && <option value={value}>#{value} (not in the catalog)</option>}
      {options?.map((o) => (
        <option key={o.id} value={o.id}>
          {o.nome}
          {o.detalhe ? ` — ${o.detalhe}` : ''}
          {o.ativo ? '' : ' (inactive)'}
        </option>
      ))}
    </select>
  );
}

function SettingsPanel({ slug }: { slug: string }) {
  // A viewer reads the settings; saving is an admin's (the console API refuses a viewer's write anyway).
  const canWrite = useCanWrite();
  const settings = useTenantSettings(slug);
  const save = useSaveSettings(slug);
  const [draft, setDraft] = useState<TenantSettings | null>(null);
  const unidades = useUnidades(slug);
  const convenios = useConvenios(slug);
  const doctors = useDoctors(slug);
  const { errors, setErrors, fromServer } = useFieldErrors();

  useEffect(() => {
    if (!settings.data) return;
    setDraft(settings.data);
    setErrors({});
  }, [settings.data, setErrors]);

  if (settings.isPending) return <Loading />;
  if (settings.isError)
    return (
      <div className="card-pad">
        <ErrorBanner error={settings.error} title="Settings could not be loaded" />
      </div>
    );
  if (!draft) return null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Enter in a field submits a form even without its button: a viewer's form sends nothing.
    if (!canWrite) return;
    const parsed = tenantSettingsSchema.safeParse({
      nome: draft.nome,
      cpf_obrigatorio: draft.cpf_obrigatorio,
      celular_obrigatorio: draft.celular_obrigatorio,
      solicitante_obrigatorio: draft.solicitante_obrigatorio,
      medico_laudo_obrigatorio: draft.medico_laudo_obrigatorio,
      central_laudos_disponivel: draft.central_laudos_disponivel,
      defaults: draft.defaults,
    });
    if (!parsed.success) {
      return setErrors(Object.fromEntries(parsed.error.issues.map((i) => [i.path.join('.'), i.message])));
    }
    setErrors({});
    save.mutate(parsed.data, { onError: fromServer });
  };

  return (
    <form className="card-pad" onSubmit={submit} noValidate aria-label={`Settings of ${slug}`}>
      <ErrorBanner error={save.error} title="Settings were not saved" />
      {save.isSuccess && !save.isPending && (
        <div className="banner banner-info" role="status">
          Settings saved.
        </div>
      )}
      {!canWrite && (
        <p className="hint" data-testid="settings-read-only">
          Read-only for a viewer: an admin changes a clinic's settings.
        </p>
      )}
      {/* A disabled fieldset disables every control in it: a viewer reads the settings as they are saved. */}
      <fieldset className="plain-fieldset" disabled={!canWrite}>
        <Field id="settings-nome" label="Clinic name" error={errors.nome}>
          <input id="settings-nome" value={draft.nome} onChange={(e) => setDraft({ ...draft, nome: e.target.value })} />
        </Field>
        <h3>Required fields</h3>
        {FLAGS.map(([key, label, hint]) => (
          <label key={key} className="checkbox" style={{ marginBottom: 8 }} title={hint}>
            <input
              type="checkbox"
              checked={Boolean(draft[key])}
              onChange={(e) => setDraft({ ...draft, [key]: e.target.checked })}
            />
            {label}
          </label>
        ))}
        <h3 style={{ marginTop: 16 }}>Exam-create defaults</h3>
        <p className="hint" style={{ marginTop: -4 }}>
          Used by <code>POST /v1/exames</code> when the integrator omits the field; shown in <code>GET /v1/config</code>
          .
        </p>
        <div className="grid-form">
          {DEFAULTS.map(({ key, label, from, papel }) => {
            const source = from === 'unidades' ? unidades : from === 'convenios' ? convenios : doctors;
            const options = papel ? source.data?.filter((o) => o.papeis?.includes(papel)) : source.data;
            return (
              <Field
                key={key}
                id={`settings-${key}`}
                label={label}
                error={errors[`defaults.${key}`] ?? (source.error ? 'The list could not be loaded.' : undefined)}
              >
                <DefaultPicker
                  id={`settings-${key}`}
                  value={draft.defaults[key]}
                  options={options}
                  loading={source.isPending}
                  onChange={(v) => setDraft({ ...draft, defaults: { ...draft.defaults, [key]: v } })}
                />
              </Field>
            );
          })}
        </div>
        <h3 style={{ marginTop: 16 }}>External report center</h3>
        <label className="checkbox" style={{ marginBottom: 4 }}>
          <input
            type="checkbox"
            checked={draft.central_laudos_disponivel}
            onChange={(e) => setDraft({ ...draft, central_laudos_disponivel: e.target.checked })}
          />
          External report center available
        </label>
        <p className="hint" style={{ marginTop: 0 }}>
          When off, the center is unreachable: deleting an exam exported to it is refused (
          <code>BACKEND_CENTRAL_SYNC</code>) and nothing is deleted.
        </p>
      </fieldset>
      {canWrite && (
        <div className="form-actions">
          <Button type="submit" variant="primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save settings'}
          </Button>
        </div>
      )}
    </form>
  );
}

function NewTenantDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateTenant();
  const [slug, setSlug] = useState('');
  const [nome, setNome] = useState('');
  const { errors, submit } = useFieldErrors();
  const created = (t: { slug: string }) => {
    onClose();
    navigate('/tenants', { tenant: t.slug });
  };
  return (
    <FormDialog
      title="New clinic"
      label="Create clinic"
      pending={create.isPending}
      error={create.error}
      errorTitle="The clinic was not created"
      onSubmit={submit(createTenantSchema, { slug, nome }, (input, onError) =>
        create.mutate(input, { onSuccess: created, onError }),
      )}
      onClose={onClose}
    >
      <Field
        id="tenant-slug"
        label="Slug"
        error={errors.slug}
        hint="Lowercase letters, digits and hyphens; it cannot change later."
      >
        {/* biome-ignore lint/a11y/noAutofocus: a dialog opens on its first field */}
        <input id="tenant-slug" value={slug} onChange={(e) => setSlug(e.target.value)} autoFocus />
      </Field>
      <Field id="tenant-nome" label="Name" error={errors.nome}>
        <input id="tenant-nome" value={nome} onChange={(e) => setNome(e.target.value)} />
      </Field>
    </FormDialog>
  );
}

/** A card about the selected clinic: its heading names the clinic, with the slug whole beside it. */
function ClinicSection({
  label,
  heading,
  nome,
  slug,
  children,
}: {
  label: string;
  heading: string;
  nome: ReactNode;
  slug: string;
  children: ReactNode;
}) {
  return (
    <SectionCard
      label={label}
      title={
        <>
          {heading} · {nome}{' '}
          <span className="mono muted nowrap" style={{ fontSize: 13, fontWeight: 400 }}>
            ({slug})
          </span>
        </>
      }
    >
      {children}
    </SectionCard>
  );
}

export function TenantsPage() {
  const tenants = useTenants();
  const { params } = useLocation();
  const selected = params.get('tenant') ?? tenants.data?.[0]?.slug;
  const [creating, setCreating] = useState(false);
  const [resetting, setResetting] = useState<string | null>(null);
  const [cloning, setCloning] = useState<string | null>(null);
  const [dropping, setDropping] = useState<{ slug: string; ephemeral: boolean } | null>(null);
  const canWrite = useCanWrite();
  const nameOf = (slug: string) => tenants.data?.find((t) => t.slug === slug)?.nome;
  const selectedName = selected ? (nameOf(selected) ?? selected) : '';
  /** A clone's template by name (`clinica-e2e@before-import`: the clinic's name and its snapshot). */
  const templateName = (template: string) => {
    const [slug, snapshot] = template.split('@');
    const nome = nameOf(slug) ?? slug;
    return snapshot ? `${nome} (snapshot ${snapshot})` : nome;
  };
  return (
    <>
      <PageHeader
        title="Clinics"
        description="Each clinic (tenant) has its own database, keys and settings."
        actions={
          canWrite && (
            <Button variant="primary" onClick={() => setCreating(true)}>
              + New clinic
            </Button>
          )
        }
      />
      <ErrorBanner error={tenants.error} title="Clinics could not be loaded" />
      <div className="split">
        <section className="card" aria-label="Clinics">
          <ListTable
            pending={tenants.isPending}
            rows={tenants.data}
            empty={<EmptyState title="No clinics yet">Create the first clinic to issue keys.</EmptyState>}
            columns={['Clinic', 'Active keys', 'Created', 'Expires']}
            rowKey={(t) => t.slug}
            row={(t) => ({
              'aria-selected': t.slug === selected,
              className: t.slug === selected ? 'row-selected' : '',
            })}
            cells={(t) => (
              <>
                <td className="col-tenant">
                  <ClinicName slug={t.slug} nome={t.nome} />
                  {t.sandbox && <StatusBadge status="sandbox" />}
                  {t.status !== 'active' && <StatusBadge status={t.status} />}
                </td>
                <td>
                  <a href={href('/keys', { tenant: t.slug })}>{t.chaves_ativas}</a>
                </td>
                <td className="col-time">
                  <DayAndTime iso={t.created_at} />
                </td>
                <td
                  className="col-time"
                  data-testid={`expires-${t.slug}`}
                  title={t.template ? `Clone of ${templateName(t.template)}` : ''}
                >
                  <DayAndTime iso={t.expires_at} />
                </td>
              </>
            )}
            actions={(t) => (
              // Two by two: the row stays as narrow as its widest pair of buttons.
              <div className="row-actions row-actions-grid">
                <Button
                  className="btn-sm"
                  onClick={() => navigate('/tenants', { tenant: t.slug })}
                  aria-label={`Settings of ${t.slug}`}
                >
                  Settings
                </Button>
                {canWrite && (
                  <Button
                    className="btn-sm"
                    variant="danger"
                    onClick={() => setResetting(t.slug)}
                    aria-label={`Reset ${t.slug}`}
                  >
                    Reset
                  </Button>
                )}
                {canWrite && t.status === 'active' && (
                  <Button className="btn-sm" onClick={() => setCloning(t.slug)} aria-label={`Clone ${t.slug}`}>
                    Clone
                  </Button>
                )}
                {canWrite && (
                  <Button
                    className="btn-sm"
                    variant="danger"
                    onClick={() => setDropping({ slug: t.slug, ephemeral: t.expires_at !== null })}
                    aria-label={`Drop ${t.slug}`}
                  >
                    Drop
                  </Button>
                )}
              </div>
            )}
          />
        </section>
        {selected && (
          <ClinicSection label="Clinic settings" heading="Settings" nome={selectedName} slug={selected}>
            <SettingsPanel key={selected} slug={selected} />
          </ClinicSection>
        )}
        {selected && (
          <ClinicSection label="Snapshots" heading="Snapshots" nome={selectedName} slug={selected}>
            <SnapshotsPanel key={selected} slug={selected} />
          </ClinicSection>
        )}
      </div>
      {creating && <NewTenantDialog onClose={() => setCreating(false)} />}
      {resetting && <ResetTenantDialog slug={resetting} onClose={() => setResetting(null)} />}
      {cloning && <CloneTenantDialog template={cloning} onClose={() => setCloning(null)} />}
      {dropping && (
        <DropTenantDialog
          slug={dropping.slug}
          ephemeral={dropping.ephemeral}
          onClose={() => {
            // The dropped clinic's settings are gone with it.
            if (params.get('tenant') === dropping.slug) navigate('/tenants');
            setDropping(null);
          }}
        />
      )}
    </>
  );
}
