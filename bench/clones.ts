import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bootstrapFirstStart, seedDefaultData } from '../appliance/bootstrap.ts';
import { startStack } from '../appliance/stack.ts';
import { ephemeralConfig } from '../server/config.ts';
import { log } from './harness.ts';

/**
 * Ephemeral clinics (issue 30): a clone of `demo` at its first-start size (the real seed) through the console API
 * (`POST /admin/api/tenants/demo/clone`, HTTP round trip, session + CSRF as the console and the kit send it),
 * then its drop (`DELETE /admin/api/tenants/:slug`), RUNS times one after the other; p50 and p99 of each.
 */
const RUNS = Number(process.env.BENCH_CLONE_RUNS ?? 30);
/** The target for a clone at demo size on this machine. */
export const CLONE_P50_TARGET_MS = 300;

export interface CloneBench {
  runs: number;
  demo_db_bytes: number;
  clone_p50_ms: number;
  clone_p99_ms: number;
  drop_p50_ms: number;
  drop_p99_ms: number;
  target_p50_ms: number;
  met: boolean;
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] * 10) / 10;
};

export async function measureClones(): Promise<CloneBench> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-clones-'));
  const config = ephemeralConfig(dataDir, { LOG_LEVEL: 'silent' });
  try {
    log('clones: seeding demo (first start)…');
    const doctors = await seedDefaultData(config);
    const stack = await startStack(config);
    try {
      const { credentials } = await bootstrapFirstStart(stack, doctors, stack.gatewayUrl);
      const base = `${stack.gatewayUrl}/admin/api`;
      const login = await fetch(`${base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: credentials.operator.username, password: credentials.operator.password }),
      });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
      const csrf = ((await login.json()) as { data: { csrf_token: string } }).data.csrf_token;
      const headers = { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' };
      const clones: number[] = [];
      const drops: number[] = [];
      for (let i = 0; i < RUNS + 2; i++) {
        let t0 = performance.now();
        const made = await fetch(`${base}/tenants/demo/clone`, { method: 'POST', headers, body: '{"ttl":"10m"}' });
        const cloneMs = performance.now() - t0;
        if (made.status !== 201) throw new Error(`clone answered ${made.status}: ${await made.text()}`);
        const { slug } = ((await made.json()) as { data: { slug: string } }).data;
        t0 = performance.now();
        const dropped = await fetch(`${base}/tenants/${slug}`, { method: 'DELETE', headers, body: '{}' });
        const dropMs = performance.now() - t0;
        if (dropped.status !== 200) throw new Error(`drop answered ${dropped.status}: ${await dropped.text()}`);
        await dropped.arrayBuffer();
        // The first two warm the paths up.
        if (i < 2) continue;
        clones.push(cloneMs);
        drops.push(dropMs);
      }
      const p50 = percentile(clones, 50);
      return {
        runs: RUNS,
        demo_db_bytes: statSync(path.join(dataDir, 'backend', 'pristine', 'demo.db')).size,
        clone_p50_ms: p50,
        clone_p99_ms: percentile(clones, 99),
        drop_p50_ms: percentile(drops, 50),
        drop_p99_ms: percentile(drops, 99),
        target_p50_ms: CLONE_P50_TARGET_MS,
        met: p50 <= CLONE_P50_TARGET_MS,
      };
    } finally {
      await stack.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function clonesLine(b: CloneBench): string {
  return (
    `ephemeral clinics (clone of demo, ${(b.demo_db_bytes / 1024 / 1024).toFixed(1)} MiB, ${b.runs} runs, HTTP round trip): ` +
    `clone p50 ${b.clone_p50_ms} ms, p99 ${b.clone_p99_ms} ms (target p50 ≤ ${b.target_p50_ms} ms: ${b.met ? 'met' : 'NOT met'}); ` +
    `drop p50 ${b.drop_p50_ms} ms, p99 ${b.drop_p99_ms} ms`
  );
}

/** `BENCH_ONLY=clones npm run bench`, and a part of the full run. */
export async function benchClones(json: boolean, report?: Record<string, unknown>): Promise<void> {
  const clones = await measureClones();
  if (report) report.clones = clones;
  if (!json) console.log(`\n${clonesLine(clones)}`);
  else if (!report) console.log(JSON.stringify({ clones }, null, 2));
}
