import type { Command } from 'commander';
import { loadApplianceConfig } from '../gateway-config.ts';
import { openGatewayDatabase } from '../../server/db/gateway-database.ts';
import { contractReport } from '../../server/proxy/contract-store.ts';
import { contractReportMarkdown, type ContractReport } from '../../contracts/admin/contract.ts';
import { readRuntimeFile } from '../runtime-file.ts';

/**
 * `proxy report [--json]` (issue 33, docs/contract-guard.md): what the contract guard saw violated on DATA_DIR's
 * gateway database (gateway.db or DATABASE_URL), per operation and rule, as a markdown table to paste into a ticket,
 * or `--json` as `GET /admin/api/contract` answers it. A running guard (`npm run proxy`) is named from its runtime file.
 */
export function addProxyCommands(program: Command): void {
  const proxy = program.command('proxy').description('the contract guard (npm run proxy): what it saw');
  proxy
    .command('report')
    .description('contract violations per operation and rule (markdown table; --json: the console API object)')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      const config = loadApplianceConfig();
      const database = await openGatewayDatabase(config);
      let report: ContractReport;
      try {
        report = await contractReport(database.db, null);
      } finally {
        await database.close();
      }
      report.proxy = readRuntimeFile(config.dataDir)?.proxy ?? null;
      console.log(opts.json ? JSON.stringify(report, null, 2) : contractReportMarkdown(report));
    });
}
