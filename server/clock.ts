import { readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { writePrivateFile } from './secrets-files.ts';
import { MAX_CLOCK_OFFSET_SECONDS, type ClockState } from '../contracts/admin/clock.ts';

/**
 * The appliance clock (issue 13 § Clock control): real time plus an offset an operator sets in
 * development mode, so the spec's time rules (the ±300 s signing window, the 24 h idempotency
 * lifetime, the 30-day audit retention, the 300 s presigned URLs, "today" in backend-sim) can be
 * exercised without waiting. Forward only: the offset is never negative (docs/decisions.md § Clock
 * control). Persisted in DATA_DIR/clock.json, so it survives restarts and the CLI, another process,
 * can change it; the gateway notices such a change within a second (one stat per second).
 * In production mode the offset is always 0 and the file is neither read nor written.
 */

export const CLOCK_FILE = 'clock.json';
/** Ten years (contracts/admin/clock.ts): far beyond any rule of the spec (30 days), near enough to catch a typo (25000d). */
export const MAX_CLOCK_OFFSET_MS = MAX_CLOCK_OFFSET_SECONDS * 1000;

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

export class ClockError extends Error {}
/** Clock control asked for outside development mode. */
export class ClockDisabledError extends ClockError {
  constructor() {
    super('Clock control is only available in development mode (APP_ENV=development).');
  }
}

/** `25h`, `30d`, `301s`, `1d2h30m`, `2w` → milliseconds; throws ClockError on anything else. */
export function parseDuration(text: string): number {
  const trimmed = text.trim().toLowerCase();
  if (!/^(\d+[smhdw])+$/.test(trimmed)) {
    throw new ClockError(
      `invalid duration "${text}": use a number with a unit s, m, h, d or w (e.g. 301s, 25h, 31d, 1d2h)`,
    );
  }
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)([smhdw])/g)) total += Number(amount) * UNIT_MS[unit];
  return total;
}

/** 90061000 → `1d 1h 1m 1s`; 0 → `0s`. */
export function formatDuration(ms: number): string {
  let seconds = Math.round(ms / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    if (seconds >= size) {
      parts.push(`${Math.floor(seconds / size)}${unit}`);
      seconds %= size;
    }
  }
  if (seconds > 0 || parts.length === 0) parts.push(`${seconds}s`);
  return parts.join(' ');
}

export function checkOffset(offsetMs: number): void {
  if (!Number.isSafeInteger(offsetMs) || offsetMs < 0)
    throw new ClockError('the clock only moves forward: the offset must be 0 or more');
  if (offsetMs > MAX_CLOCK_OFFSET_MS)
    throw new ClockError(`the offset must not exceed ${formatDuration(MAX_CLOCK_OFFSET_MS)}`);
}

interface ClockFileContent {
  offset_ms: number;
  /** Real time of the change (ISO 8601). */
  changed_at: string | null;
}

/** DATA_DIR/clock.json, or offset 0 when absent. A file that cannot be understood counts as 0 (and says so). */
export function readClockFile(dataDir: string): ClockFileContent & { invalid?: string } {
  let text: string;
  try {
    text = readFileSync(path.join(dataDir, CLOCK_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { offset_ms: 0, changed_at: null };
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<ClockFileContent>;
    const offset = Number(parsed.offset_ms);
    checkOffset(offset);
    return { offset_ms: offset, changed_at: typeof parsed.changed_at === 'string' ? parsed.changed_at : null };
  } catch (error) {
    return { offset_ms: 0, changed_at: null, invalid: `${CLOCK_FILE} ignored: ${(error as Error).message}` };
  }
}

/** Atomic (written aside, then renamed), owner-only; offset 0 removes the file: real time. */
export function writeClockFile(dataDir: string, offsetMs: number, changedAt = new Date()): void {
  checkOffset(offsetMs);
  const file = path.join(dataDir, CLOCK_FILE);
  if (offsetMs === 0) {
    rmSync(file, { force: true });
    return;
  }
  const temporary = `${file}.${process.pid}.tmp`;
  writePrivateFile(
    temporary,
    `${JSON.stringify({ offset_ms: offsetMs, changed_at: changedAt.toISOString() } satisfies ClockFileContent)}\n`,
  );
  renameSync(temporary, file);
}

/** What the console, the admin API and the CLI show (contracts/admin/clock.ts). */
export type { ClockState };

export function clockState(enabled: boolean, offsetMs: number, realNow: number, changedAt: string | null): ClockState {
  return {
    enabled,
    shifted: offsetMs > 0,
    offset_seconds: Math.floor(offsetMs / 1000),
    offset_text: formatDuration(offsetMs),
    real_time: new Date(realNow).toISOString(),
    appliance_time: new Date(realNow + offsetMs).toISOString(),
    changed_at: offsetMs > 0 ? changedAt : null,
  };
}

export interface ApplianceClockOptions {
  /** Where clock.json lives; null keeps the offset in memory only (tests building the app alone). */
  dataDir: string | null;
  /** `config.appEnv === 'development'`: otherwise the offset is always 0. */
  enabled: boolean;
  /** The real clock (tests may pin it). */
  base?: () => number;
  /** Where a listener's failure or an unreadable clock.json is reported. */
  onError?: (error: unknown) => void;
}

export type ClockListener = (offsetMs: number) => void | Promise<void>;

export class ApplianceClock {
  readonly enabled: boolean;
  private readonly base: () => number;
  private offset = 0;
  private changedAt: string | null = null;
  /** stat identity of clock.json last read: a change (or its removal) triggers a re-read. */
  private fileIdentity = '';
  private readonly listeners = new Set<ClockListener>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: ApplianceClockOptions) {
    this.enabled = options.enabled;
    this.base = options.base ?? Date.now;
    if (this.enabled) this.reloadIfChanged();
  }

  /** Appliance time, epoch ms: what every time rule reads. */
  now(): number {
    return this.base() + this.offset;
  }

  realNow(): number {
    return this.base();
  }

  offsetMs(): number {
    return this.offset;
  }

  state(): ClockState {
    return clockState(this.enabled, this.offset, this.base(), this.changedAt);
  }

  /** Sets the offset (persisted), then runs the listeners (purges, an external backend-sim) before resolving. */
  async set(offsetMs: number): Promise<ClockState> {
    if (!this.enabled) throw new ClockDisabledError();
    checkOffset(offsetMs);
    const changedAt = new Date(this.base());
    if (this.options.dataDir) {
      writeClockFile(this.options.dataDir, offsetMs, changedAt);
      this.fileIdentity = this.identity();
    }
    await this.apply(offsetMs, changedAt.toISOString());
    return this.state();
  }

  /** Moves the clock `deltaMs` further ahead of where it is now (a CLI change included). */
  async advance(deltaMs: number): Promise<ClockState> {
    if (!this.enabled) throw new ClockDisabledError();
    if (!Number.isSafeInteger(deltaMs) || deltaMs <= 0) throw new ClockError('advance by a positive duration');
    await this.refresh();
    return this.set(this.offset + deltaMs);
  }

  /** Back to real time. */
  reset(): Promise<ClockState> {
    return this.set(0);
  }

  /** Picks up a change another process (the CLI) made to clock.json; true when the offset changed. */
  async refresh(): Promise<boolean> {
    const before = this.offset;
    const changed = this.reloadIfChanged();
    if (changed && this.offset !== before) {
      await this.notify();
      return true;
    }
    return false;
  }

  /** One stat of clock.json per `intervalMs`; stopped by close(). */
  watch(intervalMs = 1000): void {
    if (!this.enabled || !this.options.dataDir || this.timer) return;
    this.timer = setInterval(
      () => void this.refresh().catch((error: unknown) => this.options.onError?.(error)),
      intervalMs,
    );
    this.timer.unref();
  }

  onChange(listener: ClockListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.listeners.clear();
  }

  private async apply(offsetMs: number, changedAt: string | null): Promise<void> {
    const changed = offsetMs !== this.offset;
    this.offset = offsetMs;
    this.changedAt = changedAt;
    if (changed) await this.notify();
  }

  private async notify(): Promise<void> {
    for (const listener of [...this.listeners]) {
      try {
        await listener(this.offset);
      } catch (error) {
        this.options.onError?.(error);
      }
    }
  }

  private identity(): string {
    try {
      const s = statSync(path.join(this.options.dataDir!, CLOCK_FILE));
      return `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      return 'absent';
    }
  }

  private reloadIfChanged(): boolean {
    if (!this.enabled || !this.options.dataDir) return false;
    const identity = this.identity();
    if (identity === this.fileIdentity) return false;
    this.fileIdentity = identity;
    const content = readClockFile(this.options.dataDir);
    if (content.invalid) this.options.onError?.(new ClockError(content.invalid));
    this.offset = content.offset_ms;
    this.changedAt = content.changed_at;
    return true;
  }
}
