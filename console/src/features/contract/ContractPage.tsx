import { href } from '../../lib/router.ts';
import { ListTable } from '../../lib/table.tsx';
import { Badge, EmptyState, ErrorBanner, PageHeader, breakable, formatDate } from '../../lib/ui.tsx';
import { useContractReport } from './api.ts';

/**
 * The contract guard (issue 33, `npm run proxy`): what the upstream gateway (or the integrator's requests) did outside
 * the contract, per operation and rule: counts, first and last seen, the last value (redacted), the last entry.
 */
export function ContractPage() {
  const report = useContractReport();
  const data = report.data;
  return (
    <>
      <PageHeader
        title="Contract"
        description="Violations of the API contract the contract guard saw, per operation and rule (npm run proxy; docs/contract-guard.md)."
      />
      <ErrorBanner error={report.error} title="The contract report could not be read" />
      {data && (
        <section
          className="card card-pad"
          aria-label="Contract guard"
          style={{ marginBottom: 16 }}
          data-testid="contract-guard"
        >
          {data.proxy ? (
            <>
              Checking <span className="mono">{data.proxy.upstream}</span>{' '}
              <Badge tone="info">{data.proxy.mode === 'resign' ? 're-sign' : 'pass-through'}</Badge>{' '}
              {data.proxy.strict && <Badge tone="warn">strict</Badge>}
            </>
          ) : (
            <span className="muted">
              This appliance is not running as a contract guard; rows below were recorded earlier.
            </span>
          )}
          <span className="muted" style={{ marginLeft: 12 }} data-testid="contract-total">
            {data.total} violation(s)
          </span>
        </section>
      )}
      <ListTable
        pending={report.isPending}
        rows={data?.violations}
        testId="contract-violations"
        empty={
          <EmptyState title="No contract violations seen">Every call through the guard kept the contract.</EmptyState>
        }
        columns={['Operation', 'Rule', 'Count', 'First seen', 'Last seen', 'Last value', 'Entry']}
        rowKey={(v) => `${v.operation} ${v.rule}`}
        row={(v) => ({ 'data-operation': v.operation, 'data-rule': v.rule })}
        cells={(v) => (
          <>
            <td className="mono">{v.operation}</td>
            <td className="mono">{breakable(v.rule)}</td>
            <td data-testid="contract-count">{v.count}</td>
            <td>{formatDate(v.first_seen)}</td>
            <td>{formatDate(v.last_seen)}</td>
            <td>{v.last_value}</td>
            <td>
              <a className="mono" href={href('/audit', { request_id: v.last_request_id })}>
                {v.last_request_id}
              </a>
            </td>
          </>
        )}
      />
    </>
  );
}
