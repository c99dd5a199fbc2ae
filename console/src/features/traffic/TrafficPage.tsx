import { useMemo } from 'react';
import { navigate, useLocation } from '../../lib/router.ts';
import { ClinicSelectField, keyOptions, SelectField } from '../../lib/forms.tsx';
import { EmptyState, ErrorBanner, Loading, PageHeader, SectionCard } from '../../lib/ui.tsx';
import { useClinicDirectory } from '../../lib/vocabulary.tsx';
import { useClinicKeys, useTrafficStats, type StatsAnswer, type StatsWindow } from './api.ts';
import { UPlotChart, type ChartSeries } from './UPlotChart.tsx';

const CLASS_COLORS = { s2xx: '#1e7a3c', s3xx: '#1f5fbf', s4xx: '#c77700', s5xx: '#b42318' } as const;
const WINDOWS: Array<{ value: StatsWindow; label: string }> = [
  { value: '1h', label: 'Last hour (per minute)' },
  { value: '24h', label: 'Last 24 hours (per 15 minutes)' },
];

const ms = (v: number | null) => (v === null ? '—' : `${v} ms`);

function Charts({ stats }: { stats: StatsAnswer }) {
  const x = useMemo(() => stats.series.map((p) => Date.parse(p.t) / 1000), [stats]);
  const classes = useMemo<ChartSeries[]>(
    () =>
      (['s2xx', 's3xx', 's4xx', 's5xx'] as const).map((k) => ({
        label: k.slice(1),
        color: CLASS_COLORS[k],
        values: stats.series.map((p) => p[k]),
        bars: true,
      })),
    [stats],
  );
  const latency = useMemo<ChartSeries[]>(
    () => [
      { label: 'p50', color: '#1f5fbf', values: stats.series.map((p) => p.p50_ms) },
      { label: 'p95', color: '#b42318', values: stats.series.map((p) => p.p95_ms) },
    ],
    [stats],
  );
  const per = stats.bucket_seconds === 60 ? 'minute' : `${stats.bucket_seconds / 60} minutes`;
  const maxRefusals = Math.max(1, ...stats.refusals.map((r) => r.count));
  return (
    <>
      <div className="traffic-totals" data-testid="traffic-totals">
        <div>
          <span className="muted">Calls</span> <strong>{stats.totals.calls}</strong>
        </div>
        <div>
          <span className="muted">Refused</span> <strong>{stats.totals.refusals}</strong>
        </div>
        <div>
          <span className="muted">p50</span> <strong>{ms(stats.totals.p50_ms)}</strong>
        </div>
        <div>
          <span className="muted">p95</span> <strong>{ms(stats.totals.p95_ms)}</strong>
        </div>
      </div>
      <div className="traffic-grid">
        <SectionCard label="Requests by status class" title={`Requests per ${per} by status class`}>
          <UPlotChart
            title="Requests by status class"
            testId="chart-requests"
            x={x}
            series={classes}
            yLabel="Requests"
            stacked
          />
        </SectionCard>
        <SectionCard label="Latency" title="Latency p50 and p95">
          <UPlotChart title="Latency p50 and p95" testId="chart-latency" x={x} series={latency} yLabel="ms" />
        </SectionCard>
        <SectionCard label="Refusals by code" title="Refusals by code">
          {stats.refusals.length === 0 ? (
            <EmptyState title="No refusals">No call was answered 4xx or 5xx in this window.</EmptyState>
          ) : (
            <table className="table refusal-bars" data-testid="refusals">
              <tbody>
                {stats.refusals.map((r) => (
                  <tr key={r.code}>
                    <td className="mono">{r.code || '(no code)'}</td>
                    <td style={{ width: '55%' }}>
                      <div className="bar" style={{ width: `${(100 * r.count) / maxRefusals}%` }} />
                    </td>
                    <td className="num">{r.count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </SectionCard>
      </div>
    </>
  );
}

/**
 * Traffic of a clinic or of one of its keys (issue 31 § 3): requests by status class, p50/p95 latency and refusals
 * by code over the last hour or 24 hours, from the journal's rollup (`GET /tenants/:slug/stats`).
 */
export function TrafficPage() {
  const { params } = useLocation();
  const clinics = useClinicDirectory();
  const tenant = params.get('tenant') ?? clinics.data?.[0]?.slug;
  const chaveId = params.get('chave_id') ?? undefined;
  const window = (params.get('window') === '24h' ? '24h' : '1h') as StatsWindow;
  const keys = useClinicKeys(tenant);
  const stats = useTrafficStats(tenant, window, chaveId);
  const go = (next: Record<string, string | undefined>) =>
    navigate('/traffic', { tenant, chave_id: chaveId, window: window === '1h' ? undefined : window, ...next });
  return (
    <>
      <PageHeader
        title="Traffic"
        description="Calls per status class, refusals by code and latency of a clinic or one of its keys, from the journal."
      />
      <div className="toolbar">
        <ClinicSelectField
          id="traffic-tenant"
          value={tenant ?? ''}
          onChange={(slug) => navigate('/traffic', { tenant: slug, window: window === '1h' ? undefined : window })}
          clinics={clinics.data}
          disabled={!clinics.data}
        />
        <SelectField
          id="traffic-key"
          label="Key"
          value={chaveId ?? ''}
          onChange={(id) => go({ chave_id: id || undefined })}
          options={keyOptions(keys.data)}
          blank="All keys"
          disabled={!keys.data}
        />
        <SelectField
          id="traffic-window"
          label="Window"
          value={window}
          onChange={(w) => go({ window: w === '1h' ? undefined : w })}
          options={WINDOWS}
        />
      </div>
      <ErrorBanner error={clinics.error ?? stats.error} title="Traffic could not be loaded" />
      {!tenant && !clinics.isPending && (
        <EmptyState title="No clinics yet">Create a clinic on the Clinics page first.</EmptyState>
      )}
      {tenant && stats.isPending && <Loading label="Loading traffic…" />}
      {stats.data && stats.data.totals.calls === 0 && (
        <EmptyState title="No calls in this window">
          Calls signed with {chaveId ? 'this key' : "this clinic's keys"} show here within a few seconds.
        </EmptyState>
      )}
      {stats.data && stats.data.totals.calls > 0 && <Charts stats={stats.data} />}
    </>
  );
}
