import { formatDate } from '../../lib/ui.tsx';
import { useAlerts, type AlertView } from './api.ts';

/** At most this many alerts are listed; the rest are counted. */
const SHOWN = 5;

function alertText(a: AlertView): string {
  const key = `key #${a.chave_id}${a.label ? ` “${a.label}”` : ''} of ${a.tenant_slug}`;
  return a.kind === 'key_expiring'
    ? `The ${key} expires ${formatDate(a.expires_at ?? null)}.`
    : `The ${key} was refused on ${a.refusals} of its last ${a.calls} calls (${Math.round((a.ratio ?? 0) * 100)} %, last 15 minutes).`;
}

/**
 * Shown on every page while a key expires within 7 days or is refused on more than 20 % of at least 20 calls in the
 * last 15 minutes (issue 31 § 5; the same conditions as the Prometheus gauges), each linking to the key's calls.
 */
export function AlertsBanner() {
  const alerts = useAlerts();
  const list = alerts.data ?? [];
  if (list.length === 0) return null;
  const failing = list.some((a) => a.kind === 'key_failing');
  return (
    <div className={`banner ${failing ? 'banner-error' : 'banner-warn'}`} role="alert" aria-label="Key alerts">
      <strong>{failing ? 'An integrator’s calls are failing.' : 'API keys expire soon.'}</strong>
      <ul style={{ margin: '6px 0 0', paddingLeft: 18 }}>
        {list.slice(0, SHOWN).map((a) => (
          <li key={`${a.kind}-${a.chave_id}`} data-alert={a.kind} data-key-id={a.chave_id}>
            {alertText(a)} <a href={`#/audit?chave_id=${a.chave_id}`}>Calls</a>
            {' · '}
            <a href={`#/traffic?tenant=${encodeURIComponent(a.tenant_slug)}&chave_id=${a.chave_id}`}>Traffic</a>
          </li>
        ))}
      </ul>
      {list.length > SHOWN && <div className="banner-meta">and {list.length - SHOWN} more (`alerts` on the CLI).</div>}
    </div>
  );
}
