/**
 * `npm run proxy -- --upstream <base URL> [--pass-through] [--strict]` (issue 33, docs/contract-guard.md): the whole
 * appliance, as `npm start` runs it, with its /v1 forwarded to a real Clinic Exams Gateway and checked against the
 * contract. The command line names the upstream and the mode; the upstream's key and secret come from the environment
 * only (UPSTREAM_API_KEY, UPSTREAM_API_SECRET), so they never show in a process list or a shell history.
 */
import { proxyEnvironment } from './proxy-args.ts';

const parsed = proxyEnvironment(process.argv.slice(2));
if ('error' in parsed) {
  console.error(parsed.error);
  process.exit(2);
}
Object.assign(process.env, parsed.env);
process.argv = [...process.argv.slice(0, 2), ...parsed.rest];
await import('./main.ts');
