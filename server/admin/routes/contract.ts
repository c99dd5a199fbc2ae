import type { FastifyInstance } from 'fastify';
import type { ContractReport } from '../../../contracts/admin/contract.ts';
import type { AdminDeps } from '../deps.ts';
import { contractReport } from '../../proxy/contract-store.ts';

/**
 * The contract guard's report (issue 33, docs/contract-guard.md): violations per operation and rule, first and last
 * seen, counts, the last entry. `GET /contract` for the console (any role: it reads, and holds no clinic data),
 * `GET /automation/contract` for an operator token; `npm run cli -- proxy report --json` prints the same object.
 */
export default async function contractRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  const report = async (): Promise<ContractReport> => {
    await deps.contract.flush();
    return contractReport(deps.db, deps.contract.proxy);
  };
  app.get('/contract', report);
  app.get('/automation/contract', { config: { operatorToken: true } }, report);
}
