import {
  createPatients,
  load,
  log,
  signedHeaders,
  startServer,
  stopServer,
  treeCpuMs,
  TSX,
  type Measure,
  type Server,
  type Signer,
} from './harness.ts';

/**
 * The contract guard's cost (issue 33, `BENCH_ONLY=proxy npm run bench`): a signed ping and a list of 20 patients,
 * straight to a gateway and through a guard in front of it, re-sign and pass-through. The guard's CPU per request is
 * its whole process tree's (forwarding, both checks, the journal entry, the violations' store), read from /proc
 * around the load as every row of the bench is: what the guard adds to each call, beside the upstream's own.
 */
export interface ProxyRow {
  mode: 'direct' | 'resign' | 'pass-through';
  call: string;
  /** The guard's CPU per request (µs); null for the direct rows. */
  guard_cpu_us: number | null;
  upstream_cpu_us: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  non2xx: number;
}

const CALLS = [
  { call: 'signed GET /v1/ping', path: '/v1/ping' },
  { call: 'signed GET /v1/pacientes?limit=20', path: '/v1/pacientes?limit=20' },
];

/** CPU per request of the upstream while a load runs against another server: its tree's CPU over the requests. */
async function measured(target: Server, upstream: Server, spec: Parameters<typeof load>[1]) {
  const before = treeCpuMs(upstream.child.pid!);
  const measure: Measure = await load(target, spec);
  const after = treeCpuMs(upstream.child.pid!);
  return { measure, upstreamUs: measure.requests > 0 ? ((after - before) * 1000) / measure.requests : 0 };
}

export async function measureProxy(): Promise<ProxyRow[]> {
  const rows: ProxyRow[] = [];
  log('proxy: the upstream gateway…');
  const upstream = await startServer(TSX, ['bench/gateway-server.ts'], { AUDIT_ENABLED: 'true' });
  try {
    const upstreamSigner = upstream.info as unknown as Signer;
    await createPatients(upstream, upstreamSigner, 40);
    for (const { call, path } of CALLS) {
      const spec = { method: 'GET' as const, path, headers: signedHeaders(upstreamSigner, 'GET', path, '') };
      const { measure, upstreamUs } = await measured(upstream, upstream, spec);
      rows.push(row('direct', call, null, measure, upstreamUs || measure.cpuUs));
    }
    for (const mode of ['resign', 'pass-through'] as const) {
      log(`proxy: the guard, ${mode}…`);
      const guard = await startServer(TSX, ['bench/proxy-server.ts'], {
        PROXY_MODE: mode,
        UPSTREAM_URL: upstream.info.url,
        UPSTREAM_API_KEY: upstream.info.apiKey,
        UPSTREAM_API_SECRET: upstream.info.apiSecret,
      });
      try {
        // Re-sign: the guard's own key; pass-through: the upstream's, forwarded as it is.
        const signer = mode === 'resign' ? (guard.info as unknown as Signer) : upstreamSigner;
        for (const { call, path } of CALLS) {
          const spec = { method: 'GET' as const, path, headers: signedHeaders(signer, 'GET', path, '') };
          const { measure, upstreamUs } = await measured(guard, upstream, spec);
          rows.push(row(mode, call, measure.cpuUs, measure, upstreamUs));
        }
      } finally {
        await stopServer(guard);
      }
    }
  } finally {
    await stopServer(upstream);
  }
  return rows;
}

function row(mode: ProxyRow['mode'], call: string, guard: number | null, m: Measure, upstreamUs: number): ProxyRow {
  return {
    mode,
    call,
    guard_cpu_us: guard === null ? null : Math.round(guard),
    upstream_cpu_us: Math.round(upstreamUs),
    rps: Math.round(m.rps),
    p50_ms: m.p50,
    p99_ms: m.p99,
    non2xx: m.non2xx,
  };
}

export function proxyTable(rows: ProxyRow[]): string {
  const lines = [
    'contract guard (issue 33): CPU per request of the guard (its process tree) and of the upstream',
    '| mode | call | guard µs/req | upstream µs/req | req/s | p50 ms | p99 ms | non-2xx |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.mode} | ${r.call} | ${r.guard_cpu_us ?? '—'} | ${r.upstream_cpu_us} | ${r.rps} | ${r.p50_ms} | ${r.p99_ms} | ${r.non2xx} |`,
    );
  return lines.join('\n');
}

export async function benchProxy(json: boolean, report?: Record<string, unknown>): Promise<void> {
  const rows = await measureProxy();
  if (report) report.proxy = rows;
  else if (json) console.log(JSON.stringify({ proxy: rows }, null, 2));
  if (!json) console.log(`\n${proxyTable(rows)}`);
}
