import { useAuditStorage, type JournalStatus } from './api.ts';

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** What else makes room, besides a larger budget (development mode only; docs/operations.md § Audit journal sizing). */
const REMEDIES =
  ' In development mode, shorten the retention with AUDIT_RETENTION_DAYS or prune the journal: "Prune journal…" on the Audit page, or `journal prune --before <time> [--tenant <slug>]` on the CLI.';

/** Each reason the journal is not ok, in the operator's words. */
function reasonText(reason: JournalStatus['reasons'][number], j: JournalStatus): string {
  switch (reason) {
    case 'write_failed':
      return `A journal commit failed (${j.last_write_error ?? 'storage error'}): API requests are refused with 503 until gateway.db takes writes again.`;
    case 'verified_full':
      return `Verified entries fill the journal budget: API requests are refused with 503 (history inside the 30-day retention is never deleted to make room). Raise AUDIT_MAX_BYTES or AUDIT_MAX_ROWS.${REMEDIES}`;
    case 'verified_near_full':
      return `Verified entries use over 80% of the journal budget (${mb(j.totals.verified.bytes)} of ${mb(j.max_bytes)}).${REMEDIES}`;
    case 'disk_full':
      return `The journal's files in DATA_DIR (${mb(j.disk.footprint_bytes)} with the WAL) reach AUDIT_MAX_BYTES (${mb(j.max_bytes)}): API requests are refused with 503 (history inside the 30-day retention is never deleted to make room). Raise AUDIT_MAX_BYTES.${REMEDIES}`;
    case 'disk_near_full':
      return `The journal's files in DATA_DIR use over 80% of AUDIT_MAX_BYTES (${mb(j.disk.footprint_bytes)} of ${mb(j.max_bytes)}, the WAL included).${REMEDIES}`;
    case 'low_space':
      return `DATA_DIR has ${mb(j.free_bytes ?? 0)} free, below AUDIT_MIN_FREE_BYTES (${mb(j.min_free_bytes)}): unauthenticated noise was dropped, and API requests are refused once gateway.db has no free page left.`;
    case 'near_low_space':
      return `DATA_DIR has ${mb(j.free_bytes ?? 0)} free, close to AUDIT_MIN_FREE_BYTES (${mb(j.min_free_bytes)}).`;
    case 'noise_shed':
      return 'Unauthenticated noise was dropped in the last 10 minutes to keep the journal within its budget.';
  }
}

/** Shown on every page while the audit journal warns or refuses requests (polled every 30 s). */
export function JournalBanner() {
  const storage = useAuditStorage(30_000);
  const j = storage.data?.journal;
  if (!j || j.state === 'ok') return null;
  const refusing = j.state === 'full' || j.state === 'failing';
  return (
    <div className={`banner ${refusing ? 'banner-error' : 'banner-warn'}`} role="alert" aria-label="Audit journal">
      <strong>
        {refusing
          ? 'The audit journal cannot record requests: the API refuses them.'
          : 'The audit journal needs attention.'}
      </strong>
      <ul style={{ margin: '6px 0 0', paddingLeft: 18 }}>
        {j.reasons.map((reason) => (
          <li key={reason}>{reasonText(reason, j)}</li>
        ))}
      </ul>
      <div className="banner-meta">
        <a href="#/audit">Audit log</a>: budget and unattributed requests.
      </div>
    </div>
  );
}
