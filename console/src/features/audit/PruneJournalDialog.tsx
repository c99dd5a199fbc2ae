import { HarExportButton } from './HarExportButton.tsx';
import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import { FormDialog, NoticeDialog } from '../../lib/dialogs.tsx';
import { ClinicSelectField } from '../../lib/forms.tsx';
import { Field, formatDate } from '../../lib/ui.tsx';
import { useClinicDirectory } from '../../lib/vocabulary.tsx';
import {
  journalPruneResult,
  type JournalPruneInput,
  type JournalPruneResult,
} from '../../../../contracts/admin/journal-prune.ts';

/** datetime-local ⇄ ISO, in the browser's zone (the API takes and answers UTC ISO 8601). */
const toLocalInput = (date: Date) =>
  new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
const fromLocalInput = (value: string) => (value ? new Date(value).toISOString() : '');

const usePrune = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: JournalPruneInput) => api(journalPruneResult, 'POST', '/journal/prune', input),
    onSuccess: (result) => {
      // The journal's pages and its budget changed.
      if (!result.dry_run) void client.invalidateQueries();
    },
  });
};

const what = (r: JournalPruneResult) =>
  `${r.entries.toLocaleString('en-US')} entr${r.entries === 1 ? 'y' : 'ies'}${
    r.tenant ? ` of ${r.tenant}` : ` and ${r.unattributed_groups.toLocaleString('en-US')} unattributed group(s)`
  } older than ${formatDate(r.before)}`;

/**
 * Prune the journal (development mode only; docs/console.md § Audit): the operator picks a time and, if they want,
 * one clinic; the dialog first counts what would go (a dry run), then prunes exactly that filter. Production
 * answers 403 OPERATION_NOT_ALLOWED to the count already, shown as the reason.
 */
export function PruneJournalDialog({ onClose }: { onClose: () => void }) {
  const clinics = useClinicDirectory();
  const { refetch } = clinics;
  // Clinics a test suite created a moment ago (through the API) are offered too.
  useEffect(() => void refetch(), [refetch]);
  const [before, setBefore] = useState(() => toLocalInput(new Date(Date.now() - 3_600_000)));
  const [tenant, setTenant] = useState('');
  const count = usePrune();
  const prune = usePrune();
  const input = (dryRun: boolean): JournalPruneInput => ({
    before: fromLocalInput(before),
    ...(tenant ? { tenant } : {}),
    dry_run: dryRun,
  });
  const counted = count.data;
  const changed = (set: (value: string) => void) => (value: string) => {
    set(value);
    count.reset();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!before) return;
    if (!counted) count.mutate(input(true));
    else if (counted.removed > 0) prune.mutate(input(false));
  };

  if (prune.data) {
    return (
      <NoticeDialog title="Journal pruned" onClose={onClose}>
        <div className="banner banner-info" role="status" data-testid="prune-result">
          <strong>Removed {what(prune.data)}.</strong>
          <div>This prune is recorded in the journal (journal.prune); records of prunes are never pruned.</div>
        </div>
      </NoticeDialog>
    );
  }

  return (
    <FormDialog
      title="Prune the journal?"
      label={counted ? `Prune ${counted.removed.toLocaleString('en-US')} entries` : 'Count entries'}
      pendingLabel={counted ? 'Pruning…' : 'Counting…'}
      variant={counted ? 'danger' : 'primary'}
      pending={count.isPending || prune.isPending}
      disabled={!before || (counted !== undefined && counted.removed === 0)}
      onSubmit={submit}
      error={prune.error ?? count.error}
      errorTitle={prune.error ? 'The journal was not pruned' : 'The entries could not be counted'}
      onClose={onClose}
    >
      <p className="hint" style={{ marginTop: 0 }}>
        Development mode only: removes journal entries older than a time, of every clinic or one, so a journal that
        tests filled takes requests again. Production keeps the spec's 30 days. The CLI does the same:{' '}
        <code>journal prune --before &lt;time&gt; [--tenant &lt;slug&gt;]</code>.
      </p>
      <Field id="prune-before" label="Older than">
        <input
          id="prune-before"
          type="datetime-local"
          value={before}
          onChange={(e) => changed(setBefore)(e.target.value)}
          // biome-ignore lint/a11y/noAutofocus: a dialog opens on its first field
          autoFocus
        />
      </Field>
      <ClinicSelectField
        id="prune-tenant"
        value={tenant}
        onChange={changed(setTenant)}
        clinics={clinics.data}
        blank="All clinics (and unattributed requests)"
      />
      {counted && (
        <div
          className={`banner ${counted.removed > 0 ? 'banner-warn' : 'banner-info'}`}
          role="alert"
          data-testid="prune-count"
        >
          <strong>
            {counted.removed > 0
              ? `This removes ${what(counted)}.`
              : `Nothing is older than ${formatDate(counted.before)}.`}
          </strong>
          {counted.removed > 0 && <div>They cannot be restored. Records of earlier prunes stay.</div>}
          {counted.removed > 0 && tenant && (
            <div className="filters-actions" style={{ marginTop: 8 }}>
              {/* Export before pruning: the clinic's calls up to the same time, as HAR 1.2 (redacted as journaled). */}
              <HarExportButton filters={{ tenant, to: counted.before }} />
            </div>
          )}
        </div>
      )}
    </FormDialog>
  );
}
