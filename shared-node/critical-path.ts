import { writeFileSync } from 'node:fs';

/**
 * Issue 32 § 2: where a create's time goes, stage by stage (decision C32-1). Off unless
 * CRITICAL_PATH_FILE names a file; then each process (gateway, backend-sim) accumulates count, total and max
 * per stage and writes them as JSON to `<file>.<role>.json` at exit. Off, a stage costs one boolean test and
 * no clock read. Timings only: no ids, keys or bodies.
 */
const FILE = process.env.CRITICAL_PATH_FILE || '';
export const CRITICAL_PATH_ON = FILE !== '';

interface Stage {
  count: number;
  totalUs: number;
  maxUs: number;
}
const stages = new Map<string, Stage>();
let role = '';

/** A timestamp for `stageDone` (0 when off: no clock read). */
export function stageStart(): number {
  return CRITICAL_PATH_ON ? performance.now() : 0;
}

/** Adds the time since `started` (from stageStart) to `name`. */
export function stageDone(name: string, started: number): void {
  if (!CRITICAL_PATH_ON) return;
  record(name, (performance.now() - started) * 1000);
}

function record(name: string, us: number): void {
  let stage = stages.get(name);
  if (!stage) {
    stage = { count: 0, totalUs: 0, maxUs: 0 };
    stages.set(name, stage);
  }
  stage.count += 1;
  stage.totalUs += us;
  if (us > stage.maxUs) stage.maxUs = us;
}

/** Records a value (a group's size) as a stage whose `_us` fields are that value. */
export function stageValue(name: string, value: number): void {
  if (!CRITICAL_PATH_ON) return;
  record(name, value);
}

export interface StageSummary {
  count: number;
  mean_us: number;
  max_us: number;
}

export function criticalPathSummary(): Record<string, StageSummary> {
  const out: Record<string, StageSummary> = {};
  for (const [name, s] of stages)
    out[name] = { count: s.count, mean_us: Math.round(s.totalUs / s.count), max_us: Math.round(s.maxUs) };
  return out;
}

/** Names this process's file (`gateway`, `backend-sim`) and writes it at exit; once per role. */
export function reportCriticalPathAtExit(name: string): void {
  if (!CRITICAL_PATH_ON || role !== '') return;
  role = name;
  process.on('exit', () => {
    try {
      writeFileSync(`${FILE}.${role}.${process.pid}.json`, JSON.stringify(criticalPathSummary()));
    } catch {
      // A timing report never fails a shutdown.
    }
  });
}
