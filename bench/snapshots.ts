import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { seedTenant } from '../seed/seed.ts';
import { createTenantDatabase } from '../backend-sim/tenants.ts';
import { FileStore } from '../backend-sim/storage.ts';
import { TenantGate } from '../backend-sim/tenant-gate.ts';
import { restoreSnapshot, saveSnapshot } from '../backend-sim/db/snapshots.ts';
import { log } from './harness.ts';

/**
 * Named snapshots (issue 30 § 2): save (VACUUM INTO on the clinic's connection, checksum, row count) and restore
 * (in-place refill of every table, search index rebuilt) of one clinic database, median of RUNS, at the demo's
 * size (the first start's demo: 300 patients with exams, reports and appointments) and at 200,000 patients.
 * backend-sim's own functions, in this process, without files (the demo's seeded rows share sample objects that
 * are no clinic's; a clinic's uploads are copied object by object, inside the storage server).
 * Targets (issue 30): ≤ 300 ms at demo size, ≤ 5 s at 200,000 patients.
 */
const RUNS = Number(process.env.BENCH_SNAPSHOT_RUNS ?? 3);
const CASES = [
  { label: 'demo size', patients: 300, exams: 1200, appointments: 300, target_ms: 300 },
  { label: '200,000 patients', patients: 200_000, exams: 0, appointments: 0, target_ms: 5000 },
];

export interface SnapshotFigure {
  label: string;
  patients: number;
  rows: number;
  bytes: number;
  save_ms: number;
  restore_ms: number;
  target_ms: number;
  met: boolean;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (ms: number) => Math.round(ms * 10) / 10;

export async function measureSnapshots(): Promise<SnapshotFigure[]> {
  const figures: SnapshotFigure[] = [];
  for (const c of CASES) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-snap-'));
    try {
      const slug = 'bench';
      const seeding = performance.now();
      await seedTenant({
        dataDir,
        slug,
        seed: 42,
        patients: c.patients,
        exams: c.exams,
        appointments: c.appointments,
        profile: 'rich',
      });
      log(`snapshots: seeded ${c.label} in ${Math.round(performance.now() - seeding)} ms`);
      const tenant = await createTenantDatabase(dataDir, slug);
      const gate = new TenantGate();
      const ctx = {
        dataDir,
        slug,
        files: new FileStore(undefined),
        release: 'bench',
        now: () => new Date().toISOString(),
      };
      const hold = <T>(work: () => Promise<T>) => gate.exclusive(slug, work);
      const saves: number[] = [];
      const restores: number[] = [];
      let rows = 0;
      let bytes = 0;
      for (let i = 0; i < RUNS; i++) {
        let t = performance.now();
        const m = await saveSnapshot(tenant, ctx, 'bench', { replace: true, hold });
        saves.push(performance.now() - t);
        rows = m.rows;
        bytes = m.bytes;
        t = performance.now();
        await restoreSnapshot(tenant, ctx, 'bench', hold);
        restores.push(performance.now() - t);
      }
      await tenant.close();
      const save = median(saves);
      const restore = median(restores);
      figures.push({
        label: c.label,
        patients: c.patients,
        rows,
        bytes,
        save_ms: round(save),
        restore_ms: round(restore),
        target_ms: c.target_ms,
        met: save <= c.target_ms && restore <= c.target_ms,
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return figures;
}

export function snapshotsTable(figures: SnapshotFigure[]): string {
  const lines = ['named snapshots (one clinic database, median of runs): save | restore | target'];
  for (const f of figures)
    lines.push(
      `  ${f.label.padEnd(18)} ${String(f.rows).padStart(9)} rows ${String(Math.round(f.bytes / 1024)).padStart(8)} KiB   save ${String(f.save_ms).padStart(8)} ms   restore ${String(f.restore_ms).padStart(8)} ms   ≤ ${f.target_ms} ms ${f.met ? 'met' : 'NOT met'}`,
    );
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  measureSnapshots().then((f) => console.log(snapshotsTable(f)));
}
