import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ephemeralConfig } from '../server/config.ts';
import { startStack, type BackendSimMode } from '../appliance/stack.ts';
import { ALL_SCOPES } from '../contracts/scopes.ts';
import { OTEL_VARIABLES } from '../shared-node/otel.ts';
import { LOAD_CORE, PIN, serveUntilStopped } from './harness.ts';

// The whole appliance (embedded S3, backend-sim, gateway) as `npm start` runs it, with a fresh data dir:
// backend-sim in its own child process (BENCH_BACKEND_SIM=in-process: in this process, as before issue 25).
const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-'));
const config = ephemeralConfig(dataDir, {
  // The benchmark measures the gateway, not the quota.
  RATE_LIMIT_PER_MINUTE: '100000000',
  AUDIT_ENABLED: process.env.AUDIT_ENABLED ?? 'true',
  // Tracing as the environment says (bench/tracing.ts turns it on, pointed at its sink).
  ...Object.fromEntries(
    OTEL_VARIABLES.flatMap((name) => (process.env[name] ? [[name, process.env[name] as string]] : [])),
  ),
});
const backendSim = (process.env.BENCH_BACKEND_SIM ?? 'process') as BackendSimMode;
const stack = await startStack(config, { backendSim });
// This process runs pinned to the server core, and its child would inherit that: backend-sim gets the other core
// (the load generator's, which uses a fraction of it at these rates), as `npm start` has two cores. CPU per
// request counts both processes. BENCH_BACKEND_CORES moves it elsewhere (the topologies keep it on the server core).
const cores = process.env.BENCH_BACKEND_CORES ?? (PIN ? LOAD_CORE : undefined);
if (cores && stack.backendSim?.mode === 'process')
  execFileSync('taskset', ['--all-tasks', '-p', '-c', cores, String(stack.backendSim.pid)], { stdio: 'ignore' });
await stack.tenants.create({ slug: 'bench', nome: 'Clinica Bench' });
const key = await stack.keys.create({ tenantSlug: 'bench', scopes: [...ALL_SCOPES] });
const backendPid = stack.backendSim?.mode === 'process' ? String(stack.backendSim.pid) : undefined;
serveUntilStopped(
  { url: stack.gatewayUrl, apiKey: key.api_key, apiSecret: key.api_secret, backendPid, dataDir },
  () => stack.close(),
  dataDir,
);
