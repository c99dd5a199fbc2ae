import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  DURATION_S,
  load,
  log,
  startServer,
  stopServer,
  TSX,
  writePool,
  type Measure,
  type Signer,
} from './harness.ts';

/**
 * Issue 32 § 2: a create's critical path, stage by stage (decision C32-1). The appliance as bench/gateway-server.ts
 * runs it, with CRITICAL_PATH_FILE set: each process accumulates its stages and writes them at exit; this reads
 * them after the load. `BENCH_ONLY=create-path npm run bench [-- --json]`.
 */
export interface CriticalPath {
  measure: Measure;
  /** The same load with the timing off, run just before: what the stages' clock reads cost. */
  untimed: Measure;
  stages: Record<string, Record<string, { count: number; mean_us: number; max_us: number }>>;
}

async function measureCreates(dir: string, env: Record<string, string>, label: string): Promise<Measure> {
  const gw = await startServer(TSX, ['bench/gateway-server.ts'], env);
  try {
    const signer = gw.info as unknown as Signer;
    const poolFile = writePool(signer, Number(process.env.BENCH_WRITE_POOL ?? 60_000), dir);
    log(`creates ${label}, ${DURATION_S} s…`);
    return await load(gw, { method: 'POST', path: '/v1/pacientes', poolFile });
  } finally {
    await stopServer(gw);
  }
}

export async function measureCriticalPath(): Promise<CriticalPath> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-bench-path-'));
  try {
    const untimed = await measureCreates(dir, {}, 'with the critical path not timed');
    const file = path.join(dir, 'path');
    const measure = await measureCreates(dir, { CRITICAL_PATH_FILE: file }, 'with the critical path timed');
    const stages: CriticalPath['stages'] = {};
    for (const name of readdirSync(dir).filter((n) => n.startsWith('path.'))) {
      const role = name.split('.')[1];
      stages[role] = { ...stages[role], ...JSON.parse(readFileSync(path.join(dir, name), 'utf8')) };
    }
    return { measure, untimed, stages };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function criticalPathTable(p: CriticalPath): string {
  const lines = [
    `signed idempotent POST /v1/pacientes, critical path timed: ${Math.round(p.measure.rps)} creates/s, p50 ${p.measure.p50} ms, p99 ${p.measure.p99} ms, ${Math.round(p.measure.cpuUs)} µs CPU/create`,
    `  (not timed, the run before: ${Math.round(p.untimed.rps)} creates/s, p50 ${p.untimed.p50} ms, p99 ${p.untimed.p99} ms, ${Math.round(p.untimed.cpuUs)} µs CPU/create)`,
  ];
  for (const [role, stages] of Object.entries(p.stages))
    for (const [name, s] of Object.entries(stages)) {
      const unit = name.endsWith('_writes') || name.endsWith('_entries') ? '' : ' µs';
      lines.push(
        `  ${role.padEnd(11)} ${name.padEnd(62)} mean ${String(s.mean_us).padStart(7)}${unit}  max ${String(s.max_us).padStart(8)}${unit}  (${s.count})`,
      );
    }
  return lines.join('\n');
}

export async function benchCriticalPath(json: boolean): Promise<void> {
  const p = await measureCriticalPath();
  console.log(
    json
      ? JSON.stringify(
          {
            create_path: {
              creates_s: Math.round(p.measure.rps),
              p50_ms: p.measure.p50,
              p99_ms: p.measure.p99,
              server_cpu_us_per_create: Math.round(p.measure.cpuUs),
              untimed: {
                creates_s: Math.round(p.untimed.rps),
                p50_ms: p.untimed.p50,
                p99_ms: p.untimed.p99,
                server_cpu_us_per_create: Math.round(p.untimed.cpuUs),
              },
              stages: p.stages,
            },
          },
          null,
          2,
        )
      : criticalPathTable(p),
  );
}
