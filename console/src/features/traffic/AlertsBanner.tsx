import { formatDate } from '../../lib/ui.tsx';
import { useAlerts, type AlertView } from './api.ts';

/** At most this many alerts are listed; the rest are counted. */
const SHOWN = 5;

function AlertText({ alert: a }: { alert: AlertView }) {
  const key = (
    <>
      Key <span className="mono nowrap">#{a.chave_id}</span>
      {a.label ? ` “${a.label}”` : ''} of <span className="mono nowrap">{a.tenant_slug}</span>
    </>
  );
  return a.kind === 'key_expiring' ? (
    <>
      {key} expires {formatDate(a.expires_at ?? null)}.
    </>
  ) : (
    <>
      {key} was refused on {a.refusals} of its {a.calls} calls in the last 15 minutes (
      {Math.round((a.ratio ?? 0) * 100)} %).
    </>
  );
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
            <AlertText alert={a} /> <a href={`#/audit?chave_id=${a.chave_id}`}>Calls</a>
            {' · '}
            <a href={`#/traffic?tenant=${encodeURIComponent(a.tenant_slug)}&chave_id=${a.chave_id}`}>Traffic</a>
          </li>
        ))}
      </ul>
      {list.length > SHOWN && <div className="banner-meta">and {list.length - SHOWN} more (`alerts` on the CLI).</div>}
    </div>
  );
}
