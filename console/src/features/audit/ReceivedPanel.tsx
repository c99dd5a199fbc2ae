import { useState } from 'react';
import { href } from '../../lib/router.ts';
import { ClinicSelectField, SelectField, valueOptions } from '../../lib/forms.tsx';
import { Badge, Button, EmptyState, ErrorBanner, Field, Loading, formatDate } from '../../lib/ui.tsx';
import { Code, HttpStatus, useClinicDirectory } from '../../lib/vocabulary.tsx';
import {
  journalFiltersOf,
  useReceived,
  type JournalFilters,
  type NearMiss,
  type ReceivedEntry,
} from './journal-api.ts';

/** The query's text filters, each with an example of what it takes (the API's names). */
const FIELDS: Array<{ name: keyof JournalFilters; label: string; example: string }> = [
  { name: 'chave_id', label: 'Key id', example: 'e.g. 12' },
  { name: 'path', label: 'Path (prefix or template)', example: '/v1/pacientes/:id' },
  { name: 'status', label: 'Status', example: '201 or 2xx' },
  { name: 'code', label: 'Error code', example: 'e.g. AUTH_INVALID_SIGNATURE' },
  { name: 'since', label: 'Since (ISO time or request id)', example: '2026-12-02T10:00:00Z' },
];

function EntryLine({ entry }: { entry: ReceivedEntry }) {
  return (
    <>
      <span className="nowrap" title={entry.ts}>
        {formatDate(entry.ts)}
      </span>{' '}
      <span className="mono">{entry.chave_id ? `#${entry.chave_id}` : '—'}</span>{' '}
      <span className="method">{entry.method}</span>{' '}
      {entry.id !== null ? <a href={href(`/audit/${entry.id}`)}>{entry.path}</a> : <span>{entry.path}</span>}{' '}
      <HttpStatus status={entry.status} /> {entry.error_code ? <Code>{entry.error_code}</Code> : null}
    </>
  );
}

function NearMissItem({ miss }: { miss: NearMiss }) {
  return (
    <li data-testid="near-miss" style={{ marginBottom: 8 }}>
      <EntryLine entry={miss.entry} />{' '}
      {miss.differs.map((d) => (
        <Badge key={d} tone="warn">
          other {d}
        </Badge>
      ))}
      {miss.count > 1 ? <span className="muted"> ×{miss.count}</span> : null}
      <div className="hint">{miss.reason}</div>
    </li>
  );
}

/**
 * "What the gateway received": the journal's verification query for one clinic (the same as the API's, the CLI's
 * and the Playwright kit's), its entries oldest first, or the near misses and why when nothing matched.
 */
export function ReceivedPanel({ filters }: { filters: Record<string, string> }) {
  const clinics = useClinicDirectory();
  const initial = journalFiltersOf(filters);
  const [slug, setSlug] = useState(initial.slug ?? '');
  const [method, setMethod] = useState(initial.filters.method ?? '');
  const [draft, setDraft] = useState<JournalFilters>(initial.filters);
  const [asked, setAsked] = useState<{ slug: string; filters: JournalFilters; run: number }>({
    slug: '',
    filters: {},
    run: 0,
  });
  const [open, setOpen] = useState(false);
  const result = useReceived(asked.slug || undefined, asked.filters, asked.run);
  const answer = result.data;
  // Closed, the panel is its title alone: its fields stay out of the page until asked for.
  if (!open)
    return (
      <section className="card card-pad" aria-label="What the gateway received" style={{ marginBottom: 16 }}>
        <div className="form-actions" style={{ justifyContent: 'space-between', marginTop: 0 }}>
          <span>
            <strong>What the gateway received</strong>{' '}
            <span className="hint">— did a test's call arrive? Near misses say why not.</span>
          </span>
          <Button onClick={() => setOpen(true)}>Check what was received</Button>
        </div>
      </section>
    );
  return (
    <section className="card" aria-label="What the gateway received" style={{ marginBottom: 16 }}>
      <form
        className="card-pad"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const chosen = Object.fromEntries(
            Object.entries({ ...draft, method }).filter(([, v]) => v && v.trim() !== ''),
          ) as JournalFilters;
          setAsked({ slug, filters: chosen, run: asked.run + 1 });
        }}
      >
        <h3 style={{ margin: 0 }}>What the gateway received</h3>
        <p className="hint">
          Did the gateway get the call a test expects? The clinic's API calls matching these filters, oldest first, as
          the journal stores them; when none match, the closest calls and why they differ (another verb or path, a
          refusal with its code, another key or clinic).
        </p>
        <div className="grid-filters">
          <ClinicSelectField
            id="r-tenant"
            value={slug}
            onChange={setSlug}
            clinics={clinics.data}
            blank="Choose a clinic"
          />
          <SelectField
            id="r-method"
            label="Method"
            value={method}
            onChange={setMethod}
            options={valueOptions(['GET', 'POST', 'PATCH', 'PUT', 'DELETE'])}
            blank="Any"
          />
          {FIELDS.map(({ name, label, example }) => (
            <Field key={name} id={`r-${name}`} label={label} error={undefined}>
              <input
                id={`r-${name}`}
                value={draft[name] ?? ''}
                placeholder={example}
                onChange={(e) => setDraft({ ...draft, [name]: e.target.value })}
              />
            </Field>
          ))}
        </div>
        <div className="form-actions">
          <Button onClick={() => setOpen(false)}>Close</Button>
          <Button type="submit" variant="primary" disabled={!slug}>
            Check received
          </Button>
        </div>
      </form>
      <ErrorBanner error={result.error} title="The received calls could not be read" />
      {result.isFetching && <Loading />}
      {answer && !result.isFetching && (
        <div className="card-pad" data-testid="received-result" style={{ paddingTop: 0 }}>
          {answer.entries.length > 0 ? (
            <>
              <p className="hint">
                {answer.entries.length} {answer.entries.length === 1 ? 'call' : 'calls'} received
                {answer.truncated ? ' (more match: narrow the filters or ask since the last one)' : ''}.
              </p>
              <ol data-testid="received-entries">
                {answer.entries.map((e) => (
                  <li key={e.request_id}>
                    <EntryLine entry={e} />
                  </li>
                ))}
              </ol>
            </>
          ) : (
            <>
              <EmptyState title="Nothing received matches">
                {answer.near_misses.length > 0
                  ? 'The closest calls, closest first:'
                  : 'No call of this clinic is close to these filters.'}
              </EmptyState>
              <ul data-testid="near-misses">
                {answer.near_misses.map((m) => (
                  <NearMissItem key={`${m.entry.request_id}-${m.differs.join()}`} miss={m} />
                ))}
              </ul>
            </>
          )}
          {answer.window.capped && (
            <p className="hint">
              Only the clinic's newest {answer.window.max_entries.toLocaleString('en-US')} entries were looked at.
            </p>
          )}
        </div>
      )}
    </section>
  );
}
