import { z } from 'zod';

/**
 * The contract guard's report (issue 33, docs/contract-guard.md): `GET /admin/api/contract` (the console's Contract
 * screen, the automation API with an operator token) and `npm run cli -- proxy report --json` answer the same
 * object, field for field.
 */

export const contractViolationRow = z.object({
  /** The OpenAPI operationId (`getPacientesById`), as the metric's `operation` label. */
  operation: z.string(),
  /** The contract's path that was not kept (`responses.201.headers.Location`), as the metric's `rule` label. */
  rule: z.string(),
  count: z.number().int().min(1),
  first_seen: z.string(),
  last_seen: z.string(),
  /** What was seen the last time, redacted: a type and size, a status, a contract code; never a value. */
  last_value: z.string(),
  /** The journal entry of the last time (the console links it). */
  last_request_id: z.string(),
});
export type ContractViolationRow = z.infer<typeof contractViolationRow>;

export const contractReport = z.object({
  /** This appliance as a contract guard; null when it runs as the gateway itself (`npm start`). */
  proxy: z
    .object({
      mode: z.enum(['resign', 'pass-through']),
      /** The upstream's base URL, without credentials. */
      upstream: z.string(),
      strict: z.boolean(),
    })
    .nullable(),
  /** Every violation counted, over every row. */
  total: z.number().int().min(0),
  /** Per operation and rule, the most recent first. */
  violations: z.array(contractViolationRow),
});
export type ContractReport = z.infer<typeof contractReport>;

/** The report as a markdown table an integrator pastes into a ticket (the CLI's default output). */
export function contractReportMarkdown(report: ContractReport): string {
  const lines: string[] = [];
  const guard = report.proxy
    ? `Contract guard: ${report.proxy.upstream} (${report.proxy.mode}${report.proxy.strict ? ', strict' : ''})`
    : 'Contract guard: not running as a proxy (npm run proxy); violations recorded earlier on this DATA_DIR';
  lines.push(guard, '');
  if (report.violations.length === 0) {
    lines.push('No contract violations seen.');
    return lines.join('\n');
  }
  const cell = (text: string | number) => String(text).replace(/\|/g, '\\|').replace(/\s+/g, ' ');
  lines.push('| operation | rule | count | first seen | last seen | last value | last request_id |');
  lines.push('| --- | --- | ---: | --- | --- | --- | --- |');
  for (const v of report.violations) {
    lines.push(
      `| ${[v.operation, `\`${v.rule}\``, v.count, v.first_seen, v.last_seen, v.last_value, v.last_request_id].map(cell).join(' | ')} |`,
    );
  }
  lines.push('', `${report.total} violation(s) over ${report.violations.length} operation and rule pair(s).`);
  return lines.join('\n');
}
