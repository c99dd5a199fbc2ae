import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createPatients,
  load,
  log,
  POST_BODY,
  signedHeaders,
  startServer,
  stopServer,
  writePool,
  type Signer,
} from './harness.ts';

/**
 * `npm run bench:profile -- <ping|post|list|create>`: one row of `npm run bench` with the server under
 * V8's sampling profiler (`--cpu-prof`), then where the server's CPU went during the measured load:
 * self time by function and by module, and inclusive time of the gateway's parts, for the gateway's process and for
 * backend-sim's (which inherits the profiler's flags), over the same window of the monotonic clock. It is the profile
 * docs/benchmarks.md's "What the profile shows is left" refers to. Same pinning and pre-signed requests as the bench.
 */
type Case = 'ping' | 'post' | 'list' | 'create';
const which = (process.argv[2] ?? 'ping') as Case;
if (!['ping', 'post', 'list', 'create'].includes(which)) {
  console.error('usage: npm run bench:profile -- <ping|post|list|create>');
  process.exit(2);
}

interface CpuProfile {
  startTime: number;
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

// A frame is (url, function name). Anonymous audit frames and releaseCommitted are left out: the
// responses are sent from them once the commit is done, and that sending is not the audit's cost
// (the commit's own frames are under the named flush).
const INCLUSIVE: Array<[string, (frame: string, fn: string) => boolean]> = [
  [
    'audit log (entry built, SQLite insert and group commit)',
    (f, fn) => f.includes('/server/audit/') && fn !== '' && fn !== 'releaseCommitted',
  ],
  ['idempotency store (reserve, seal, complete)', (f) => f.includes('/server/idempotency/')],
  ['authentication (headers, key cache, HMAC)', (f) => f.includes('/server/auth/') || f.includes('/server/keys/')],
  [
    'backend client (undici request; JSON.parse and zod of answers not relayed or checked)',
    (f) => f.includes('/server/backend/client'),
  ],
  ['backend-sim (its Fastify routes, domain, SQLite, contract check of its reads)', (f) => f.includes('/backend-sim/')],
  ['response serialization (JSON.stringify, relayed data spliced)', (f) => f.includes('/server/http/schemas')],
];

/** The monotonic clock V8's profiles time their samples with (CLOCK_MONOTONIC, µs), the same in every process. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Where one process's CPU went between two instants of the monotonic clock (µs). */
function summarize(file: string, fromUs: number, toUs: number): string | null {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const frameName = (id: number) => {
    const cf = nodes.get(id)!.callFrame;
    return `${cf.functionName || '(anonymous)'} ${cf.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(server|backend-sim|contracts)\//, '$1/')}`;
  };
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  const inclusive = new Map<string, number>(INCLUSIVE.map(([name]) => [name, 0]));
  let t = profile.startTime;
  let busy = 0;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    if (t < fromUs || t > toUs) continue;
    const leaf = nodes.get(profile.samples[i])!.callFrame;
    if (leaf.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    busy += dt;
    const name = frameName(profile.samples[i]);
    byFunction.set(name, (byFunction.get(name) ?? 0) + dt);
    const module = leaf.url
      ? leaf.url
          .replace(/^.*node_modules\/(@[^/]+\/[^/]+|[^/]+)\/.*$/, '$1')
          .replace(/^file:\/\/.*?\/((server|backend-sim|contracts)\/.*)$/, '$1')
      : leaf.functionName;
    byModule.set(module, (byModule.get(module) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const { url, functionName } = nodes.get(id)!.callFrame;
      for (const [category, test] of INCLUSIVE) {
        if (!seen.has(category) && test(url, functionName)) {
          seen.add(category);
          inclusive.set(category, inclusive.get(category)! + dt);
        }
      }
    }
  }
  // A process that did nothing in the window (one started by the tooling, say) is left out.
  if (busy === 0) return null;
  const pct = (v: number) => `${((100 * v) / busy).toFixed(1).padStart(5)} %`;
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `  ${pct(v)}  ${k}`)
      .join('\n');
  return [
    `busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s of the measured load (percentages are of busy time)`,
    'inclusive (synchronous stacks only: work resumed after an await counts where it resumes):',
    top(inclusive, INCLUSIVE.length),
    'self time by function:',
    top(byFunction, 25),
    'self time by module:',
    top(byModule, 15),
  ].join('\n');
}

const dir = mkdtempSync(path.join(tmpdir(), 'gw-bench-profile-'));
try {
  const gw = await startServer(
    process.execPath,
    ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--import', 'tsx', 'bench/gateway-server.ts'],
    {
      AUDIT_ENABLED: 'true',
    },
  );
  const signer = gw.info as unknown as Signer;
  let spec: Parameters<typeof load>[1];
  if (which === 'ping')
    spec = { method: 'GET', path: '/v1/ping', headers: signedHeaders(signer, 'GET', '/v1/ping', '') };
  else if (which === 'post')
    spec = {
      method: 'POST',
      path: '/v1/ping',
      body: POST_BODY,
      headers: signedHeaders(signer, 'POST', '/v1/ping', POST_BODY),
    };
  else if (which === 'list') {
    await createPatients(gw, signer, 300);
    spec = {
      method: 'GET',
      path: '/v1/pacientes?limit=50',
      headers: signedHeaders(signer, 'GET', '/v1/pacientes?limit=50', ''),
    };
  } else spec = { method: 'POST', path: '/v1/pacientes', poolFile: writePool(signer, 40_000, dir) };
  if (which !== 'create') await load(gw, spec, 2);
  const startUs = monotonicUs();
  const measure = await load(gw, spec);
  const endUs = monotonicUs();
  await stopServer(gw);
  // backend-sim's process inherits the profiler's flags (appliance/backend-sim-process.ts): its profile is here too.
  const profiles = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f));
  const gatewayProfile = profiles.find((f) => path.basename(f).includes(`.${gw.child.pid}.`)) ?? profiles[0];
  console.log(
    `${which}: ${Math.round(measure.rps)} req/s, ${Math.round(measure.cpuUs)} µs of server CPU per request (under the profiler), p50 ${measure.p50} ms`,
  );
  // The load process needs about a second to start sending: the window is trimmed at its start.
  for (const file of [gatewayProfile, ...profiles.filter((f) => f !== gatewayProfile)]) {
    const summary = summarize(file, startUs + 1.5e6, endUs);
    if (summary)
      console.log(
        `\n${file === gatewayProfile ? 'the gateway process' : 'backend-sim (its own process)'}:\n${summary}`,
      );
  }
  // BENCH_PROFILE_OUT=file.cpuprofile keeps the gateway's raw profile (Chrome DevTools, speedscope).
  if (process.env.BENCH_PROFILE_OUT) {
    copyFileSync(gatewayProfile, process.env.BENCH_PROFILE_OUT);
    console.log(
      `profile kept in ${process.env.BENCH_PROFILE_OUT} (measured window: ${startUs + 1.5e6}–${endUs} µs of the monotonic clock)`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  log('');
}
