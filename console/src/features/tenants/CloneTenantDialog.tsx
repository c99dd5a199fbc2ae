import { useState } from 'react';
import { CLONE_TTL_DEFAULT, cloneTenantSchema } from '../../../../contracts/admin/clones.ts';
import { CopyableValue } from '../../lib/copy.tsx';
import { FormDialog, ShownOnceDialog } from '../../lib/dialogs.tsx';
import { useFieldErrors } from '../../lib/forms.tsx';
import { Field, Loading, formatDate } from '../../lib/ui.tsx';
import { SlugConfirmedDialog } from './SlugConfirmedDialog.tsx';
import { useCloneTenant, useClonePolicy, useDropTenant, type TenantCloned } from './api.ts';

/** Production refuses clones and drops unless ALLOW_EPHEMERAL_CLINICS is set: said before anything is typed. */
function Disabled({ appEnv, variable }: { appEnv: string; variable: string }) {
  return (
    <div className="banner banner-warn" role="alert" data-testid="clone-disabled">
      <strong>Ephemeral clinics are disabled on this appliance.</strong>
      <div>
        It runs with <code>APP_ENV={appEnv}</code>. To allow them, restart the appliance with{' '}
        <code>{variable}=true</code>.
      </div>
    </div>
  );
}

/** The clone's key, shown once, like an issued key. */
function ClonedDialog({ cloned, onClose }: { cloned: TenantCloned; onClose: () => void }) {
  return (
    <ShownOnceDialog
      title={`Clinic ${cloned.slug} cloned from ${cloned.template}`}
      storedLabel="I have stored the secret safely"
      onClose={onClose}
      warning={
        <>
          <strong>Copy the secret now — it will not be shown again.</strong>
          <div>
            The clinic is removed by the appliance on {formatDate(cloned.expires_at)} (
            <span data-testid="cloned-expires-at">{cloned.expires_at}</span>) unless you drop it sooner.
          </div>
        </>
      }
    >
      <CopyableValue
        label="Clinic (slug)"
        labelId="cloned-slug-label"
        value={cloned.slug}
        testId="cloned-slug"
        copyLabel="Copy slug"
      />
      <CopyableValue
        label="API key (X-API-Key)"
        labelId="cloned-api-key-label"
        value={cloned.api_key}
        testId="cloned-api-key"
        copyLabel="Copy key"
      />
      <CopyableValue
        label="API secret"
        labelId="cloned-api-secret-label"
        value={cloned.api_secret}
        testId="cloned-api-secret"
        copyLabel="Copy secret"
      />
    </ShownOnceDialog>
  );
}

/** Clone a clinic (issue 30): its first-start state or a named snapshot, a slug, a time to live. */
export function CloneTenantDialog({ template, onClose }: { template: string; onClose: () => void }) {
  const clone = useCloneTenant(template);
  const policy = useClonePolicy();
  const [slug, setSlug] = useState('');
  const [snapshot, setSnapshot] = useState('');
  const [ttl, setTtl] = useState(CLONE_TTL_DEFAULT);
  const { errors, submit } = useFieldErrors();
  const allowed = policy.data?.allowed === true;

  if (clone.data) return <ClonedDialog cloned={clone.data} onClose={onClose} />;

  return (
    <FormDialog
      title={`Clone ${template}`}
      label="Clone clinic"
      pendingLabel="Cloning…"
      pending={clone.isPending}
      disabled={!allowed}
      error={clone.error ?? policy.error}
      errorTitle="The clinic was not cloned"
      onSubmit={submit(
        cloneTenantSchema,
        { slug: slug.trim() || undefined, snapshot: snapshot.trim() || undefined, ttl: ttl.trim() },
        (input, onError) => clone.mutate(input, { onError }),
      )}
      onClose={onClose}
    >
      {policy.isPending ? (
        <Loading />
      ) : policy.data && !policy.data.allowed ? (
        <Disabled appEnv={policy.data.app_env} variable={policy.data.opt_in_variable} />
      ) : (
        <p className="hint">
          A copy of {template}'s first-start state (or of a snapshot) with its own key with every scope. At most{' '}
          {policy.data?.max} ephemeral clinics at once.
        </p>
      )}
      <Field
        id="clone-ttl"
        label="Time to live"
        error={errors.ttl}
        hint={`90s, 30m, 2h… up to ${policy.data?.ttl_max ?? '24h'}.`}
      >
        {/* biome-ignore lint/a11y/noAutofocus: a dialog opens on its first field */}
        <input id="clone-ttl" value={ttl} onChange={(e) => setTtl(e.target.value)} autoFocus disabled={!allowed} />
      </Field>
      <Field id="clone-slug" label="Slug (optional)" error={errors.slug} hint={`Default: ${template}-<6 hex>.`}>
        <input id="clone-slug" value={slug} onChange={(e) => setSlug(e.target.value)} disabled={!allowed} />
      </Field>
      <Field
        id="clone-snapshot"
        label="Snapshot (optional)"
        error={errors.snapshot}
        hint="Empty: the first-start state."
      >
        <input id="clone-snapshot" value={snapshot} onChange={(e) => setSnapshot(e.target.value)} disabled={!allowed} />
      </Field>
    </FormDialog>
  );
}

/** Drop a clinic: its slug typed back, for a clone as for a permanent clinic. */
export function DropTenantDialog({
  slug,
  ephemeral,
  onClose,
}: {
  slug: string;
  ephemeral: boolean;
  onClose: () => void;
}) {
  const drop = useDropTenant(slug);
  const policy = useClonePolicy();
  return (
    <SlugConfirmedDialog
      slug={slug}
      verb={{ name: 'Drop', doing: 'Dropping…', done: 'dropped' }}
      policy={policy}
      action={drop}
      onConfirm={() => drop.mutate()}
      done={(dropped) => (
        <div className="banner banner-info" role="status" data-testid="drop-result">
          {dropped.keys_removed} key(s), {dropped.idempotency_keys_removed} idempotency entr(ies) and{' '}
          {dropped.files_removed} stored file(s) removed. The journal keeps the clinic's entries.
        </div>
      )}
      onClose={onClose}
    >
      {policy.data && !policy.data.allowed ? (
        <Disabled appEnv={policy.data.app_env} variable={policy.data.opt_in_variable} />
      ) : (
        <div className="banner banner-warn" role="alert">
          <strong>
            {ephemeral
              ? 'This ephemeral clinic is deleted now.'
              : 'This is a permanent clinic: it is deleted for good.'}
          </strong>
          <div>Its database, stored files, keys and idempotency entries go. The journal keeps its entries.</div>
        </div>
      )}
    </SlugConfirmedDialog>
  );
}
