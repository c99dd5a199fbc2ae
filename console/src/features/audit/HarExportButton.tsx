import { useState } from 'react';
import { Button, ErrorBanner } from '../../lib/ui.tsx';
import { downloadHar, journalFiltersOf } from './journal-api.ts';

/**
 * "Export HAR": the API calls the audit page's filters select, for the chosen clinic, as a HAR 1.2 file (redacted
 * as the journal stores them). The export is journaled as `journal.har`.
 */
export function HarExportButton({ filters }: { filters: Record<string, string> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const { slug, filters: journal } = journalFiltersOf(filters);
  return (
    <>
      <Button
        disabled={!slug || busy}
        title={
          slug
            ? `The API calls of ${slug} these filters select, as a HAR 1.2 file (redacted as journaled)`
            : 'Choose a clinic in the filters to export its calls as HAR'
        }
        onClick={() => {
          if (!slug) return;
          setBusy(true);
          setError(null);
          downloadHar(slug, journal)
            .catch(setError)
            .finally(() => setBusy(false));
        }}
      >
        {busy ? 'Exporting…' : 'Export HAR'}
      </Button>
      {error ? (
        <div style={{ flexBasis: '100%' }}>
          <ErrorBanner error={error} title="The HAR could not be exported" />
        </div>
      ) : null}
    </>
  );
}
